import { Option, type Command } from 'commander';
import { EXPORT_FORMATS, exportDatabase, type ExportFormat } from '../../analysis/export.ts';
import { DEFAULT_HOURLY_USD } from '../../analysis/runs.ts';
import { textTable } from '../../format/table.ts';
import { nonNegativeNumber } from '../args.ts';
import { printJson } from '../io.ts';
import type { CommandContext } from '../main.ts';

interface ExportOptions {
  readonly format: ExportFormat;
  readonly out: string;
  readonly hourlyUsd: number;
  readonly json?: boolean;
}

export function registerExport(program: Command, ctx: CommandContext): void {
  program
    .command('export')
    .description(
      'Write every table of a results database, plus a flat run_rows table with the report numbers, as Parquet, Arrow IPC or CSV files',
    )
    .argument('<db>', 'results database (a DuckDB file)')
    .addOption(new Option('--format <format>', 'file format').choices(EXPORT_FORMATS).makeOptionMandatory())
    .requiredOption('--out <dir>', 'directory to write <table>.<format> files into (created if missing)')
    .addOption(
      new Option('--hourly-usd <x>', 'dollars per machine hour for run_rows.compute_usd')
        .argParser(nonNegativeNumber)
        .default(DEFAULT_HOURLY_USD),
    )
    .option('--json', 'print the files written as JSON')
    .addHelpText(
      'after',
      `
Types survive: timestamps (microseconds), booleans, lists of strings; JSON columns are UTF-8 text
marked as JSON (Parquet logical type, Arrow extension "arrow.json"); CSV carries lists as JSON arrays.

Examples:
  $ mace export runs/quickstart.duckdb --format parquet --out export/
  $ mace export runs/quickstart.duckdb --format arrow --out export/ --json
  $ python3 -c "import pandas as pd; print(pd.read_parquet('export/run_rows.parquet').head())"`,
    )
    .action(async (db: string, options: ExportOptions) => {
      const files = await exportDatabase(db, options.format, options.out, { hourlyUsd: options.hourlyUsd });
      if (options.json) printJson(ctx.io, files);
      else ctx.io.out(textTable(files, [{ key: 'table' }, { key: 'rows' }, { key: 'path' }]));
    });
}
