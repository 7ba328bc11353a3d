/**
 * SQLite files through sql.js (SQLite compiled to WebAssembly: no native build, runs on any Node).
 * Used to import the original Python MACE's databases and, in the benchmark, to run the report on a
 * SQLite copy. The whole file is read into memory, which suits results databases.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import initSqlJs, { type Database, type SqlValue } from 'sql.js';
import { InputError } from '../../mace/errors.ts';
import { TABLES, TABLE_NAMES, type ColumnType } from '../../mace/store/schema.ts';
import { Store, type Params, type Queries } from '../../mace/store/store.ts';
import type { Source } from './source.ts';

const HEADER = 'SQLite format 3\u0000';

let engine: ReturnType<typeof initSqlJs> | undefined;

/**
 * Open an SQLite database file (read into memory), or an empty in-memory one when no path is given.
 * Refuses a file that is not SQLite, and one whose write-ahead log still holds changes (they would
 * be missed: checkpoint it first).
 */
export async function openSqlite(path?: string): Promise<Database> {
  const SQL = await (engine ??= initSqlJs());
  if (path === undefined) return new SQL.Database();
  if (!existsSync(path)) throw new InputError(`no SQLite database at ${path}`);
  const bytes = readFileSync(path);
  if (bytes.subarray(0, HEADER.length).toString('latin1') !== HEADER) {
    throw new InputError(`${path} is not an SQLite database (it lacks the "SQLite format 3" header)`);
  }
  const wal = `${path}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) {
    throw new InputError(
      `${path} has unmerged changes in ${wal}; merge them first: sqlite3 ${path} 'PRAGMA wal_checkpoint(TRUNCATE)'`,
    );
  }
  return new SQL.Database(bytes);
}

/** Parameterised queries on an SQLite database, rows as plain objects. */
export function sqliteQueries(db: Database): Queries {
  const all = async <T>(sql: string, params: Params = []): Promise<T[]> => {
    const statement = db.prepare(sql);
    try {
      statement.bind(params as SqlValue[]);
      const rows: T[] = [];
      while (statement.step()) rows.push(statement.getAsObject() as T);
      return rows;
    } finally {
      statement.free();
    }
  };
  return {
    all,
    one: async <T>(sql: string, params: Params = []) => (await all<T>(sql, params))[0],
    async columns(sql, params = []) {
      const statement = db.prepare(sql);
      try {
        statement.bind(params as SqlValue[]);
        const names = statement.getColumnNames();
        const columns: Record<string, unknown[]> = Object.fromEntries(names.map((name) => [name, []]));
        const lists = names.map((name) => columns[name]!);
        while (statement.step()) statement.get().forEach((value, i) => lists[i]!.push(value));
        return columns;
      } finally {
        statement.free();
      }
    },
  };
}

/** An SQLite file holding this project's tables (SQLite types) as an analysis source. */
export async function sqliteSource(path: string): Promise<Source & { close(): void }> {
  const db = await openSqlite(path);
  const q = sqliteQueries(db);
  return { label: path, dialect: 'sqlite', read: (fn) => fn(q), close: () => db.close() };
}

const SQLITE_TYPE: Record<ColumnType, string> = {
  VARCHAR: 'TEXT',
  JSON: 'TEXT',
  'VARCHAR[]': 'TEXT',
  INTEGER: 'INTEGER',
  BIGINT: 'INTEGER',
  BOOLEAN: 'INTEGER',
  DOUBLE: 'REAL',
  TIMESTAMP: 'REAL',
};

/**
 * An SQLite copy of a results database, each type stored the way the original did: timestamps as
 * epoch seconds, booleans as 0/1, JSON and lists as JSON text. The benchmark and the tests use it to
 * run the same analysis on both engines.
 */
export async function copyToSqlite(duckPath: string, sqlitePath: string): Promise<void> {
  const store = await Store.openForRead(duckPath);
  const sqlite = await openSqlite();
  for (const table of TABLE_NAMES) {
    const columns = Object.entries(TABLES[table].columns as Record<string, ColumnType>);
    sqlite.exec(
      `CREATE TABLE ${table} (${columns.map(([c, t]) => `${c} ${SQLITE_TYPE[t]}`).join(', ')}, ` +
        `PRIMARY KEY (${TABLES[table].primaryKey.join(', ')}))`,
    );
    const select = columns
      .map(([c, t]) =>
        t === 'TIMESTAMP'
          ? `epoch(${c}) AS ${c}`
          : t === 'BOOLEAN'
            ? `CAST(${c} AS INTEGER) AS ${c}`
            : t === 'VARCHAR[]'
              ? `CAST(to_json(${c}) AS VARCHAR) AS ${c}`
              : t === 'JSON'
                ? `CAST(${c} AS VARCHAR) AS ${c}`
                : c,
      )
      .join(', ');
    const rows = await store.read((q) => q.all<Record<string, unknown>>(`SELECT ${select} FROM ${table}`));
    const insert = sqlite.prepare(`INSERT INTO ${table} VALUES (${columns.map(() => '?').join(', ')})`);
    sqlite.exec('BEGIN');
    for (const row of rows) insert.run(columns.map(([c]) => (row[c] ?? null) as number | string | null));
    sqlite.exec('COMMIT');
    insert.free();
  }
  writeFileSync(sqlitePath, sqlite.export());
  sqlite.close();
}
