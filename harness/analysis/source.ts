/**
 * Where analysis rows come from: a results database read through one short read (the Store holds
 * the DuckDB file only for that long), or any other SQL engine that speaks the few functions the
 * analysis queries use. The SQLite side exists for the benchmark and for importing the original's
 * databases; both dialects share every query, and differ only where the storage of a type does.
 */
import type { Queries } from '../../mace/store/store.ts';
import { Store } from '../../mace/store/store.ts';

export type Dialect = 'duckdb' | 'sqlite';

export interface Source {
  /** What the rows are attributed to in reports: the database path. */
  readonly label: string;
  readonly dialect: Dialect;
  /** Run `fn` with read access to the whole database, holding it only as long as `fn` runs. */
  read<T>(fn: (q: Queries) => Promise<T>): Promise<T>;
}

/**
 * A MACE-TS results database (DuckDB) as a source; a file written by an older release is migrated
 * on open.
 * @example const source = await duckdbSource('runs/quickstart.duckdb');
 */
export async function duckdbSource(path: string): Promise<Source> {
  const store = await Store.openForRead(path);
  return { label: path, dialect: 'duckdb', read: (fn) => store.read(fn) };
}

/** SQL that differs between the dialects. Everything else (FILTER, ->>, json_array_length) is shared. */
export interface SqlDialect {
  /** Seconds since the epoch of a timestamp column (DuckDB TIMESTAMP; SQLite REAL epoch seconds). */
  epochSeconds(column: string): string;
  /** A JSON column's text, for comparisons such as `<> '{}'`. */
  jsonText(column: string): string;
}

export const DIALECTS: Readonly<Record<Dialect, SqlDialect>> = {
  duckdb: { epochSeconds: (c) => `epoch(${c})`, jsonText: (c) => `CAST(${c} AS VARCHAR)` },
  sqlite: { epochSeconds: (c) => c, jsonText: (c) => c },
};
