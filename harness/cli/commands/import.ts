import type { Command } from 'commander';
import { importOriginal } from '../../analysis/original.ts';
import { textTable } from '../../format/table.ts';
import { printJson } from '../io.ts';
import type { CommandContext } from '../main.ts';

interface ImportOptions {
  readonly db: string;
  readonly json?: boolean;
}

export function registerImport(program: Command, ctx: CommandContext): void {
  program
    .command('import')
    .description(
      'Convert a database written by the original Python MACE (SQLite) into a MACE-TS results database; reports unknown and missing columns, and importing again changes nothing',
    )
    .argument('<old.db>', "the original's SQLite database")
    .requiredOption('--db <path>', 'results database to write (a DuckDB file, created if missing)')
    .option('--json', 'print what was imported as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ mace import runs/mace_cli.db --db runs/imported.duckdb
  $ mace import runs/recovery_seeded.db --db runs/imported.duckdb && mace report runs/imported.duckdb`,
    )
    .action(async (source: string, options: ImportOptions) => {
      const report = await importOriginal(source, options.db);
      if (options.json) {
        printJson(ctx.io, report);
        return;
      }
      const rows = report.tables.map((t) => ({
        table: t.table,
        rows: t.rows,
        missing: t.missing.join(', ') || '-',
        unknown: t.unknown.join(', ') || '-',
      }));
      ctx.io.out(
        textTable(rows, [
          { key: 'table' },
          { key: 'rows' },
          { key: 'missing', title: 'missing columns (left empty)' },
          { key: 'unknown', title: 'unknown columns (not imported)' },
        ]),
      );
      if (report.missing_tables.length) ctx.io.out(`tables not in ${source}: ${report.missing_tables.join(', ')}`);
      if (report.unknown_tables.length) {
        ctx.io.out(`unknown tables (not imported): ${report.unknown_tables.join(', ')}`);
      }
      ctx.io.out(`imported into ${report.db}`);
    });
}
