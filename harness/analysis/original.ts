/**
 * Import a database written by the original Python MACE (SQLite; mace/metrics.py) into this
 * project's DuckDB schema, so a lab can regenerate its old reports and figures here.
 *
 * The original stored times as REAL epoch seconds, booleans as INTEGER 0/1 and JSON as TEXT; its
 * tables gained columns over time (ADDED_COLUMNS). Each column below is converted by its declared
 * kind. A column the original never had is reported as unknown and not imported; a known column the
 * file lacks is reported as missing and left NULL (or its default), unless the import cannot do
 * without it, which is an error. Nothing is inferred from data the original did not record (for
 * example failures.stage stays NULL). Every row is written with INSERT OR REPLACE on its primary key,
 * so importing the same file again changes nothing.
 */
import { basename } from 'node:path';
import type { Database } from 'sql.js';
import { InputError } from '../../mace/errors.ts';
import type { TableName } from '../../mace/store/schema.ts';
import { Store, type CellValue, type Row } from '../../mace/store/store.ts';
import { openSqlite, sqliteQueries } from './sqlite.ts';

/** How an original column's SQLite value becomes a value of this schema. */
type Kind = 'text' | 'int' | 'real' | 'bool' | 'epoch' | 'json' | 'string_list' | 'programs';

interface OriginalColumn {
  readonly kind: Kind;
  /** The import cannot proceed without it (a primary key or NOT NULL column with no default). */
  readonly required?: boolean;
  /** Added to the original after its first release (ADDED_COLUMNS): expected to be absent in old files. */
  readonly added?: boolean;
}

const key: OriginalColumn = { kind: 'text', required: true };

/** The original's tables and columns (reference §5), each mapped to the same name here. */
export const ORIGINAL_TABLES: Readonly<Record<string, Readonly<Record<string, OriginalColumn>>>> = {
  runs: {
    run_id: key,
    objective: { kind: 'text', required: true },
    core: { kind: 'text', required: true },
    x_tiles: { kind: 'int', required: true },
    y_tiles: { kind: 'int', required: true },
    started_at: { kind: 'epoch', required: true },
    finished_at: { kind: 'epoch' },
    status: { kind: 'text' },
    method: { kind: 'text', added: true },
    task: { kind: 'text', added: true },
    repeat: { kind: 'int', added: true },
    seed: { kind: 'int', added: true },
    meta: { kind: 'json', added: true },
  },
  iterations: {
    run_id: key,
    iteration: { kind: 'int', required: true },
    num_tasks: { kind: 'int' },
    num_passed: { kind: 'int' },
    wall_s: { kind: 'real' },
    usd: { kind: 'real' },
  },
  tasks: {
    run_id: key,
    iteration: { kind: 'int', required: true },
    task_id: key,
    kind: { kind: 'text', required: true },
    spec: { kind: 'text', required: true },
    passed: { kind: 'bool', required: true },
    build_success: { kind: 'bool', required: true },
    run_verdict: { kind: 'text' },
    wall_s: { kind: 'real' },
    caches: { kind: 'json', added: true },
    module: { kind: 'text', added: true },
    build_s: { kind: 'real', added: true },
    run_s: { kind: 'real', added: true },
    programs: { kind: 'programs', added: true },
    evidence: { kind: 'text', added: true },
    config_rtl: { kind: 'string_list', added: true },
  },
  failures: {
    run_id: key,
    iteration: { kind: 'int', required: true },
    task_id: key,
    diagnosis: { kind: 'text', required: true },
    fix: { kind: 'text' },
    recovered: { kind: 'bool' },
  },
  post_mortems: {
    run_id: key,
    assessment: { kind: 'text', required: true },
    explanation: { kind: 'text' },
    next_steps: { kind: 'text' },
  },
  llm_calls: {
    run_id: key,
    seq: { kind: 'int', required: true },
    iteration: { kind: 'int' },
    phase: { kind: 'text', required: true },
    input_tokens: { kind: 'int' },
    output_tokens: { kind: 'int' },
    thinking_tokens: { kind: 'int' },
    usd: { kind: 'real' },
    wall_s: { kind: 'real' },
    ok: { kind: 'bool' },
    reply: { kind: 'text', added: true },
  },
  evaluations: {
    run_id: key,
    idx: { kind: 'int', required: true },
    round: { kind: 'int', required: true },
    design: { kind: 'json', required: true },
    passed: { kind: 'bool', required: true },
    feasible: { kind: 'bool', required: true },
    sim_time: { kind: 'int' },
    area_um2: { kind: 'real' },
    read_energy_nj: { kind: 'real' },
    area_source: { kind: 'text' },
    wall_s: { kind: 'real' },
    simulated: { kind: 'bool', added: true },
    rejected: { kind: 'text', added: true },
  },
  resimulations: {
    run_id: key,
    task_id: key,
    program: key,
    verdict: { kind: 'text' },
    passed: { kind: 'bool', required: true },
    wall_s: { kind: 'real' },
  },
};

/** Keys of the original's runs.meta that this schema keeps in columns of their own. */
const META_COLUMNS = ['backend', 'model', 'fault'] as const;

export interface ImportedTable {
  readonly table: string;
  readonly rows: number;
  /** Known columns the file lacks (left NULL or at their default). */
  readonly missing: readonly string[];
  /** Columns the original never had: reported, not imported. */
  readonly unknown: readonly string[];
}

export interface ImportReport {
  readonly source: string;
  readonly db: string;
  readonly tables: readonly ImportedTable[];
  /** Known tables the file lacks (older versions had fewer). */
  readonly missing_tables: readonly string[];
  /** Tables the original never had: reported, not imported. */
  readonly unknown_tables: readonly string[];
}

/**
 * Convert the original's SQLite database at `sqlitePath` into the DuckDB database at `dbPath`
 * (created if needed).
 * @example const report = await importOriginal('runs/mace_cli.db', 'runs/imported.duckdb');
 */
export async function importOriginal(sqlitePath: string, dbPath: string): Promise<ImportReport> {
  const sqlite = await openSqlite(sqlitePath);
  try {
    const q = sqliteQueries(sqlite);
    const present = (
      await q.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
    ).map((t) => t.name);
    const known = Object.keys(ORIGINAL_TABLES);
    const plans = known.filter((t) => present.includes(t)).map((table) => planTable(sqlite, sqlitePath, table));
    const store = await Store.open(dbPath);
    const tables: ImportedTable[] = [];
    await store.write(async (tx) => {
      for (const plan of plans) {
        const rows = await q.all<Record<string, unknown>>(
          `SELECT ${plan.columns.map((c) => `"${c}"`).join(', ')} FROM "${plan.table}" ORDER BY rowid`,
        );
        for (const [i, row] of rows.entries()) {
          const where = `${sqlitePath}: ${plan.table} row ${i + 1}`;
          await tx.upsert(plan.table as TableName, convertRow(plan.table, row, where, basename(sqlitePath)));
        }
        tables.push({ table: plan.table, rows: rows.length, missing: plan.missing, unknown: plan.unknown });
      }
    });
    return {
      source: sqlitePath,
      db: dbPath,
      tables,
      missing_tables: known.filter((t) => !present.includes(t)),
      unknown_tables: present.filter((t) => !known.includes(t)),
    };
  } finally {
    sqlite.close();
  }
}

interface TablePlan {
  readonly table: string;
  readonly columns: readonly string[];
  readonly missing: readonly string[];
  readonly unknown: readonly string[];
}

function planTable(sqlite: Database, path: string, table: string): TablePlan {
  const spec = ORIGINAL_TABLES[table]!;
  const result = sqlite.exec(`PRAGMA table_info("${table}")`)[0];
  const present = (result?.values ?? []).map((row) => String(row[1]));
  const missing = Object.keys(spec).filter((c) => !present.includes(c));
  const required = missing.filter((c) => spec[c]!.required);
  if (required.length) {
    throw new InputError(
      `${path}: table ${table} has no column ${required.join(', ')}, which the import needs ` +
        `(the original's ${table} has ${Object.keys(spec).join(', ')})`,
    );
  }
  return {
    table,
    columns: present.filter((c) => c in spec),
    missing,
    unknown: present.filter((c) => !(c in spec)),
  };
}

function convertRow(table: string, row: Record<string, unknown>, where: string, source: string): Row {
  const spec = ORIGINAL_TABLES[table]!;
  const out: Row = {};
  for (const [column, value] of Object.entries(row)) {
    out[column] = convert(spec[column]!.kind, value, `${where}, column ${column}`);
  }
  if (table === 'runs') {
    const meta = (out.meta ?? {}) as Record<string, unknown>;
    for (const name of META_COLUMNS) if (typeof meta[name] === 'string') out[name] = meta[name] as string;
    out.meta = { ...meta, imported_from: source };
  }
  // Columns this schema declares NOT NULL with a default: an absent value takes the default.
  for (const [column, value] of Object.entries(out))
    if (value === null && DEFAULTED.has(`${table}.${column}`)) delete out[column];
  return out;
}

const DEFAULTED = new Set([
  'runs.status',
  'iterations.num_tasks',
  'iterations.num_passed',
  'iterations.wall_s',
  'iterations.usd',
  'tasks.wall_s',
  'failures.recovered',
  'llm_calls.input_tokens',
  'llm_calls.output_tokens',
  'llm_calls.thinking_tokens',
  'llm_calls.usd',
  'llm_calls.wall_s',
  'llm_calls.ok',
  'evaluations.wall_s',
  'evaluations.simulated',
  'evaluations.rejected',
  'resimulations.wall_s',
]);

function convert(kind: Kind, value: unknown, where: string): CellValue {
  if (value === null || value === undefined) return null;
  const fail = (what: string): never => {
    throw new InputError(`${where}: expected ${what}, found ${JSON.stringify(value)}`);
  };
  switch (kind) {
    case 'text':
      return String(value);
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) ? value : fail('an integer');
    case 'real':
      return typeof value === 'number' ? value : fail('a number');
    case 'bool':
      return value === 0 || value === 1 ? value === 1 : fail('0 or 1');
    case 'epoch':
      return typeof value === 'number' ? new Date(value * 1000) : fail('epoch seconds');
    case 'json':
      return parseJson(value, where);
    case 'string_list': {
      const list = parseJson(value, where);
      return Array.isArray(list) && list.every((x) => typeof x === 'string') ? list : fail('a JSON list of strings');
    }
    case 'programs': {
      // The original recorded [test, verdict]; this schema adds the simulated finish time, unknown here.
      const list = parseJson(value, where);
      if (!Array.isArray(list) || !list.every((p) => Array.isArray(p) && p.length === 2)) {
        return fail('a JSON list of [test, verdict] pairs');
      }
      return (list as unknown[][]).map(([test, verdict]) => [test, verdict, null]);
    }
  }
}

function parseJson(value: unknown, where: string): object {
  try {
    return JSON.parse(String(value)) as object;
  } catch {
    throw new InputError(`${where}: expected JSON text, found ${JSON.stringify(String(value).slice(0, 60))}`);
  }
}
