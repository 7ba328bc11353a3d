import { InvalidArgumentError, type Command } from 'commander';
import { FIGURE_FORMATS, FIGURE_NAMES, figureInputs, isSkipped, writeFigures } from '../../figures/index.ts';
import type { FigureFormat, FigureName } from '../../figures/index.ts';
import { addAnalysisFlags, analysisOptions, type AnalysisFlags } from '../analysis-flags.ts';
import { CommandFailed, printJson } from '../io.ts';
import type { CommandContext } from '../main.ts';

interface FiguresOptions extends AnalysisFlags {
  readonly out: string;
  readonly format: FigureFormat[];
  readonly only?: FigureName[];
  readonly runId?: string;
  readonly pitonRoot?: string;
  readonly json?: boolean;
}

/** A comma-separated list whose every item must be one of `accepted`. */
function listOf<T extends string>(accepted: readonly T[], what: string) {
  return (value: string): T[] => {
    const items = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = items.filter((item) => !accepted.includes(item as T));
    if (!items.length || bad.length) {
      throw new InvalidArgumentError(
        `unknown ${what} ${bad.join(', ') || '(none given)'}; expected some of ${accepted.join(', ')}.`,
      );
    }
    return items as T[];
  };
}

export function registerFigures(program: Command, ctx: CommandContext): void {
  const command = program
    .command('figures')
    .description(
      'Draw the study figures from one or more results databases: SVG, PNG (300 dpi) and SVG with outlined text, each beside its Vega-Lite spec and data',
    )
    .argument('<db...>', 'results databases (DuckDB files); a run found in several counts once')
    .requiredOption('--out <dir>', 'directory to write the figures into (created if missing)')
    .option(
      '--format <list>',
      `comma-separated formats: ${FIGURE_FORMATS.join(', ')}`,
      listOf(FIGURE_FORMATS, 'format'),
      ['svg', 'png'] as FigureFormat[],
    )
    .option('--only <names>', `comma-separated figures: ${FIGURE_NAMES.join(', ')}`, listOf(FIGURE_NAMES, 'figure'))
    .option('--run-id <id>', 'the run the timeline shows (default: the reference run with the most iterations)')
    .option(
      '--piton-root <dir>',
      "the OpenPiton checkout plan replay's check reads (default: the loop's offline checkout)",
    )
    .option('--json', 'print the manifest (figures written, skipped and why) as JSON');
  addAnalysisFlags(command)
    .addHelpText(
      'after',
      `
Examples:
  $ mace figures results/quickstart.duckdb --out results/figures
  $ mace figures runs/vm1.duckdb runs/vm2.duckdb --out figs --format svg,png,outlined.svg
  $ mace figures runs/ablations.duckdb --out figs --only ablations,cost --hourly-usd 0.5`,
    )
    .action((dbs: string[], options: FiguresOptions) => figures(dbs, options, ctx));
}

async function figures(dbs: readonly string[], options: FiguresOptions, ctx: CommandContext): Promise<void> {
  const inputs = await figureInputs(dbs, {
    ...analysisOptions(options),
    runId: options.runId,
    pitonRoot: options.pitonRoot,
  });
  if (!inputs.analysis.runs.length) throw new CommandFailed(`no labelled evaluation runs in ${dbs.join(', ')}`);
  const manifest = await writeFigures(inputs, {
    out: options.out,
    formats: options.format,
    only: options.only,
    onFigure: options.json
      ? undefined
      : (f) => {
          if (isSkipped(f)) return ctx.io.out(`${f.name}: skipped, ${f.skipped}`);
          ctx.io.out(`${f.name}: ${f.files.join(', ')} (${f.seconds.toFixed(2)} s)`);
          for (const warning of f.warnings) ctx.io.err(`warning: ${f.name}: ${warning}`);
        },
  });
  if (options.json) printJson(ctx.io, manifest);
  else ctx.io.out(`${manifest.figures.length} figure(s) in ${options.out}`);
}
