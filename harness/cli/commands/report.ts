import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { analyseFiles, summariseFiles } from '../../analysis/analyse.ts';
import { renderMarkdown, runRowsCsv } from '../../analysis/report.ts';
import { addAnalysisFlags, analysisOptions, type AnalysisFlags } from '../analysis-flags.ts';
import { CommandFailed, printJson } from '../io.ts';
import type { CommandContext } from '../main.ts';

interface ReportOptions extends AnalysisFlags {
  readonly out?: string;
  readonly csv?: string;
  readonly json?: boolean;
}

export function registerReport(program: Command, ctx: CommandContext): void {
  const command = program
    .command('report')
    .description(
      'Report on one or more results databases (one per machine): pass rates, time to pass, cost, paired tests against MACE, ablations, seeded-fault recovery, co-design',
    )
    .argument('<db...>', 'results databases (DuckDB files); a run found in several counts once')
    .option('--out <file.md>', 'also write the Markdown report to this file')
    .option('--csv <file>', 'write one row per labelled run (replaced and co-design runs included) as CSV')
    .option('--json', 'print every table as JSON instead of Markdown');
  addAnalysisFlags(command)
    .addHelpText(
      'after',
      `
Examples:
  $ mace report runs/quickstart.duckdb
  $ mace report runs/vm1.duckdb runs/vm2.duckdb --out report.md --csv runs.csv
  $ mace report runs/ablations.duckdb --hourly-usd 0.36 --json | jq '.comparisons[] | {method, p: .test.p}'`,
    )
    .action((dbs: string[], options: ReportOptions) => report(dbs, options, ctx));
}

async function report(dbs: readonly string[], options: ReportOptions, ctx: CommandContext): Promise<void> {
  // Run rows are read only for the outputs that list them; the tables alone are grouped in SQL.
  const settings = analysisOptions(options);
  const withRuns = options.json || options.csv ? await analyseFiles(dbs, settings) : undefined;
  const analysis = withRuns ?? (await summariseFiles(dbs, settings));
  if (!analysis.counts.runs) throw new CommandFailed(`no labelled evaluation runs in ${dbs.join(', ')}`);
  if (options.csv && withRuns) writeFileSync(options.csv, runRowsCsv(withRuns.runs));
  const markdown = renderMarkdown(analysis);
  if (options.out) writeFileSync(options.out, markdown);
  if (options.json) printJson(ctx.io, analysis);
  else ctx.io.out(markdown);
}
