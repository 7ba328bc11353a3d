/**
 * Every table of a results database, plus the flat run_rows table, as files other tools read:
 * Parquet (DuckDB's own writer), Arrow IPC (apache-arrow; this DuckDB build has no Arrow support)
 * and CSV. Types survive:
 * - timestamps are microsecond timestamps (Parquet TIMESTAMP_MICROS, Arrow Timestamp<MICROSECOND>),
 *   and ISO text in CSV;
 * - booleans are booleans (true/false in CSV);
 * - VARCHAR[] lists are lists of strings (Parquet LIST, Arrow List<Utf8>), and JSON arrays in CSV;
 * - JSON columns are UTF-8 strings holding the JSON text: Parquet marks them with the JSON logical
 *   type, Arrow with the canonical `arrow.json` extension name in the field metadata; readers that do
 *   not know the mark see a string to parse.
 * - BIGINT stays 64-bit (exact, read through text rather than JS numbers).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DuckDBInstance, DuckDBTimestampValue, type DuckDBAppender } from '@duckdb/node-api';
import {
  Bool,
  Field,
  Float64,
  Int32,
  Int64,
  List,
  Schema,
  Table,
  TimestampMicrosecond,
  Utf8,
  makeData,
  makeVector,
  tableToIPC,
  vectorFromArray,
  type DataType,
  type Vector,
} from 'apache-arrow';
import { TABLES, TABLE_NAMES, type ColumnType } from '../../mace/store/schema.ts';
import { Store } from '../../mace/store/store.ts';
import { loadRuns, RUN_ROW_COLUMNS, type LoadOptions } from './runs.ts';
import { duckdbSource } from './source.ts';

export const EXPORT_FORMATS = ['parquet', 'arrow', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const EXTENSION: Record<ExportFormat, string> = { parquet: 'parquet', arrow: 'arrow', csv: 'csv' };

export interface ExportedTable {
  readonly table: string;
  readonly path: string;
  readonly rows: number;
}

type Columns = Readonly<Record<string, ColumnType>>;

/**
 * Export a database's tables and its run rows to `outDir`, one file per table.
 * @example await exportDatabase('runs/quickstart.duckdb', 'parquet', 'export/');
 */
export async function exportDatabase(
  dbPath: string,
  format: ExportFormat,
  outDir: string,
  options: LoadOptions = {},
): Promise<ExportedTable[]> {
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  const file = (table: string) => join(dir, `${table}.${EXTENSION[format]}`);
  const store = await Store.openForRead(dbPath);
  const exported: ExportedTable[] = [];
  await store.read(async (q) => {
    for (const table of TABLE_NAMES) {
      const columns = TABLES[table].columns as Columns;
      const [{ rows }] = (await q.all<{ rows: number }>(`SELECT count(*) AS rows FROM ${table}`)) as [{ rows: number }];
      if (format === 'arrow') {
        const values = await q.all(`SELECT ${exactSelect(columns)} FROM ${table}`);
        writeFileSync(file(table), arrowTable(columns, values));
      } else {
        await q.all(copyStatement(table, columns, format, file(table)));
      }
      exported.push({ table, path: file(table), rows });
    }
  });
  const loaded = await loadRuns([await duckdbSource(dbPath)], options);
  const runRows = loaded.rows as unknown as Record<string, unknown>[];
  if (format === 'arrow') writeFileSync(file('run_rows'), arrowTable(RUN_ROW_COLUMNS, runRows.map(exactValues)));
  else await copyRows('run_rows', RUN_ROW_COLUMNS, runRows, format, file('run_rows'));
  exported.push({ table: 'run_rows', path: file('run_rows'), rows: runRows.length });
  return exported;
}

const quote = (path: string) => `'${path.replace(/'/g, "''")}'`;

/** COPY a table (or query) to Parquet or CSV; in CSV, lists become JSON arrays. */
function copyStatement(from: string, columns: Columns, format: 'parquet' | 'csv', path: string): string {
  const select = Object.entries(columns)
    .map(([name, type]) => (format === 'csv' && type === 'VARCHAR[]' ? `to_json(${name}) AS ${name}` : name))
    .join(', ');
  const options = format === 'parquet' ? 'FORMAT parquet, COMPRESSION zstd' : 'FORMAT csv, HEADER true';
  return `COPY (SELECT ${select} FROM ${from}) TO ${quote(path)} (${options})`;
}

/** Select every column so no value passes through a JS number: 64-bit integers and timestamps as text. */
function exactSelect(columns: Columns): string {
  return Object.entries(columns)
    .map(([name, type]) => {
      if (type === 'BIGINT') return `CAST(${name} AS VARCHAR) AS ${name}`;
      if (type === 'TIMESTAMP') return `CAST(epoch_us(${name}) AS VARCHAR) AS ${name}`;
      if (type === 'JSON') return `CAST(${name} AS VARCHAR) AS ${name}`;
      return name;
    })
    .join(', ');
}

/** A run row's values in the form exactSelect gives: timestamps as microseconds, as text. */
function exactValues(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    out[name] = value instanceof Date ? String(BigInt(value.getTime()) * 1000n) : value;
  }
  return out;
}

function arrowType(type: ColumnType): DataType {
  switch (type) {
    case 'VARCHAR':
    case 'JSON':
      return new Utf8();
    case 'INTEGER':
      return new Int32();
    case 'BIGINT':
      return new Int64();
    case 'DOUBLE':
      return new Float64();
    case 'BOOLEAN':
      return new Bool();
    case 'TIMESTAMP':
      return new TimestampMicrosecond();
    case 'VARCHAR[]':
      return new List(new Field('item', new Utf8(), true));
  }
}

function arrowVector(type: ColumnType, values: readonly unknown[]): Vector {
  const toBigInt = (v: unknown) => (v === null || v === undefined ? null : BigInt(v as string | number));
  if (type === 'TIMESTAMP') {
    // apache-arrow's builder takes milliseconds as a float; build from exact microseconds instead.
    const data = vectorFromArray(values.map(toBigInt), new Int64()).data[0]!;
    return makeVector(
      makeData({
        type: new TimestampMicrosecond(),
        length: data.length,
        nullCount: data.nullCount,
        nullBitmap: data.nullBitmap,
        data: data.values,
      }),
    );
  }
  if (type === 'BIGINT') return vectorFromArray(values.map(toBigInt), new Int64());
  return vectorFromArray(
    values.map((v) => v ?? null),
    arrowType(type),
  );
}

/** An Arrow IPC file of rows with the given column types. */
function arrowTable(columns: Columns, rows: readonly Record<string, unknown>[]): Uint8Array {
  const fields = Object.entries(columns).map(
    ([name, type]) =>
      new Field(
        name,
        arrowType(type),
        true,
        type === 'JSON' ? new Map([['ARROW:extension:name', 'arrow.json']]) : undefined,
      ),
  );
  const vectors = Object.fromEntries(
    Object.entries(columns).map(([name, type]) => [
      name,
      arrowVector(
        type,
        rows.map((row) => row[name]),
      ),
    ]),
  );
  return tableToIPC(new Table(new Schema(fields), vectors), 'file');
}

/** Write JS rows to Parquet or CSV through an in-memory DuckDB, so run_rows gets the same writer as the tables. */
async function copyRows(
  name: string,
  columns: Columns,
  rows: readonly Record<string, unknown>[],
  format: 'parquet' | 'csv',
  path: string,
): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false' });
  const connection = await instance.connect();
  try {
    const definition = Object.entries(columns)
      .map(([column, type]) => `${column} ${type}`)
      .join(', ');
    await connection.run(`CREATE TABLE ${name} (${definition})`);
    const appender = await connection.createAppender(name);
    for (const row of rows) {
      for (const [column, type] of Object.entries(columns)) append(appender, type, row[column]);
      appender.endRow();
    }
    appender.closeSync();
    await connection.run(copyStatement(name, columns, format, path));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function append(appender: DuckDBAppender, type: ColumnType, value: unknown): void {
  if (value === null || value === undefined) return appender.appendNull();
  switch (type) {
    case 'VARCHAR':
    case 'JSON':
      return appender.appendVarchar(String(value));
    case 'INTEGER':
      return appender.appendInteger(value as number);
    case 'BIGINT':
      return appender.appendBigInt(BigInt(Math.round(value as number)));
    case 'DOUBLE':
      return appender.appendDouble(value as number);
    case 'BOOLEAN':
      return appender.appendBoolean(value as boolean);
    case 'TIMESTAMP':
      return appender.appendTimestamp(new DuckDBTimestampValue(BigInt((value as Date).getTime()) * 1000n));
    case 'VARCHAR[]':
      return appender.appendList((value as string[]).map(String));
  }
}
