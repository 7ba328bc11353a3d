import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { EXPORT_FORMATS, exportDatabase, type ExportedTable } from '../../harness/analysis/export.ts';
import { RUN_ROW_COLUMNS } from '../../harness/analysis/runs.ts';
import { TABLES, TABLE_NAMES, type ColumnType } from '../../mace/store/schema.ts';
import { Store, closeAllStores } from '../../mace/store/store.ts';
import { recordPlanCheck } from '../../mace/store/writers.ts';
import { query } from '../../mace/store/readers.ts';
import { runCli, tempDir } from '../helpers.ts';
import { smallStudy, writeRun } from './study.ts';

after(closeAllStores);
const dir = tempDir();
const db = join(dir, 'export.duckdb');
const exported = new Map<string, ExportedTable[]>();

before(async () => {
  const store = await Store.open(db);
  const wanted = new Set(['mace-7-1', 'expert-1', 'seeded-0', 'codesign-1', 'raw-unfinished']);
  for (const run of smallStudy().filter((r) => wanted.has(r.runId))) await writeRun(store, run);
  await recordPlanCheck(store, {
    runId: 'seeded-0',
    iteration: 1,
    attempt: 0,
    action: 'accepted',
    problems: [],
    stripped: { t0: ['PITON_FPGA_SYNTH'] },
    added: {},
  });
  await closeAllStores();
  for (const format of EXPORT_FORMATS) exported.set(format, await exportDatabase(db, format, join(dir, format)));
});

const ALL = [...TABLE_NAMES, 'run_rows'] as const;
const columnsOf = (table: string): Readonly<Record<string, ColumnType>> =>
  table === 'run_rows' ? RUN_ROW_COLUMNS : TABLES[table as keyof typeof TABLES].columns;

async function sourceCounts(): Promise<Record<string, number>> {
  const store = await Store.openForRead(db);
  const counts: Record<string, number> = {};
  for (const table of TABLE_NAMES) {
    counts[table] = (await query<{ n: number }>(store, `SELECT count(*) AS n FROM ${table}`))[0]!.n;
  }
  counts.run_rows = (await query<{ n: number }>(store, 'SELECT count(*) AS n FROM runs WHERE task IS NOT NULL'))[0]!.n;
  return counts;
}

async function withDuckDB<T>(
  fn: (sql: (text: string) => Promise<Record<string, unknown>[]>) => Promise<T>,
): Promise<T> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return await fn(async (text) => (await connection.runAndReadAll(text)).getRowObjectsJS());
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('Queries.columns', () => {
  it('reads results column by column, plain values, whether or not every type is primitive', async () => {
    const store = await Store.openForRead(db);
    const [plain, mixed] = await store.read(async (q) => [
      await q.columns(
        `SELECT run_id, repeat, status = 'passed' AS passed, seed, 1.5::DOUBLE AS x FROM runs ORDER BY run_id`,
      ),
      await q.columns(`SELECT run_id, started_at, workloads FROM runs ORDER BY run_id`),
    ]);
    const rows = await store.read((q) =>
      q.all(`SELECT run_id, repeat, started_at, workloads FROM runs ORDER BY run_id`),
    );
    assert.deepEqual(
      plain.run_id,
      rows.map((r) => r.run_id),
    );
    assert.deepEqual(
      plain.repeat,
      rows.map((r) => r.repeat),
    );
    assert.deepEqual(
      plain.x,
      rows.map(() => 1.5),
    );
    assert.deepEqual(
      mixed.started_at,
      rows.map((r) => r.started_at),
    );
    assert.deepEqual(
      mixed.workloads,
      rows.map((r) => r.workloads),
    );
  });
});

describe('export', () => {
  it('writes one file per table plus run_rows, in every format', () => {
    for (const format of EXPORT_FORMATS) {
      assert.deepEqual(
        exported.get(format)!.map((f) => f.table),
        [...ALL],
      );
    }
  });

  it('Parquet reads back in DuckDB with the same row counts and column types', async () => {
    const counts = await sourceCounts();
    await withDuckDB(async (sql) => {
      for (const { table, path, rows } of exported.get('parquet')!) {
        assert.equal(rows, counts[table], table);
        const [{ n }] = (await sql(`SELECT count(*)::INTEGER AS n FROM '${path}'`)) as [{ n: number }];
        assert.equal(n, counts[table], `${table} rows`);
        const types = Object.fromEntries(
          (await sql(`DESCRIBE SELECT * FROM '${path}'`)).map((c) => [c.column_name, c.column_type]),
        );
        assert.deepEqual(types, { ...columnsOf(table) }, `${table} types`);
      }
      // Microseconds survive, and JSON is still JSON.
      const runs = exported.get('parquet')!.find((f) => f.table === 'runs')!.path;
      const [row] = await sql(
        `SELECT epoch_us(started_at) AS us, spec->>'$.budget.max_wall_s' AS budget, workloads FROM '${runs}' WHERE run_id = 'seeded-0'`,
      );
      assert.equal(row!.us, BigInt(Date.parse('2026-11-29T10:29:00Z')) * 1000n);
      assert.equal(row!.budget, '600');
      assert.deepEqual(row!.workloads, ['addi.S']);
    });
  });

  it('Arrow IPC reads back with the same row counts and typed columns, JSON marked as JSON', async () => {
    const counts = await sourceCounts();
    const expected: Record<ColumnType, string> = {
      VARCHAR: 'Utf8',
      JSON: 'Utf8',
      INTEGER: 'Int32',
      BIGINT: 'Int64',
      DOUBLE: 'Float64',
      BOOLEAN: 'Bool',
      TIMESTAMP: 'Timestamp<MICROSECOND>',
      'VARCHAR[]': 'List<Utf8>',
    };
    for (const { table, path } of exported.get('arrow')!) {
      const arrow = tableFromIPC(readFileSync(path));
      assert.equal(arrow.numRows, counts[table], `${table} rows`);
      const columns = columnsOf(table);
      assert.deepEqual(
        arrow.schema.fields.map((f) => [f.name, String(f.type)]),
        Object.entries(columns).map(([name, type]) => [name, expected[type]]),
        `${table} types`,
      );
      for (const field of arrow.schema.fields) {
        if (columns[field.name] === 'JSON') assert.equal(field.metadata.get('ARROW:extension:name'), 'arrow.json');
      }
    }
    const checks = tableFromIPC(readFileSync(join(dir, 'arrow', 'plan_checks.arrow')));
    const row = checks.get(0)!.toJSON();
    assert.deepEqual(JSON.parse(row.stripped as string), { t0: ['PITON_FPGA_SYNTH'] });
    const runRows = tableFromIPC(readFileSync(join(dir, 'arrow', 'run_rows.arrow')));
    const seeded = runRows.toArray().find((r) => r.run_id === 'seeded-0')!;
    assert.equal(seeded.passed, true);
    assert.equal(seeded.caught_by, 'narrowing');
    assert.equal(seeded.started_at, Date.parse('2026-11-29T10:00:00Z') + 29 * 60_000);
  });

  it('CSV reads back with the same row counts and headers; lists as JSON arrays', async () => {
    const counts = await sourceCounts();
    await withDuckDB(async (sql) => {
      for (const { table, path } of exported.get('csv')!) {
        const [{ n }] = (await sql(`SELECT count(*)::INTEGER AS n FROM read_csv('${path}', header = true)`)) as [
          { n: number },
        ];
        assert.equal(n, counts[table], `${table} rows`);
        assert.deepEqual(readFileSync(path, 'utf8').split('\n')[0]!.split(','), Object.keys(columnsOf(table)));
      }
    });
    assert.match(readFileSync(join(dir, 'csv', 'runs.csv'), 'utf8'), /"\[""addi\.S""\]"/);
  });

  it('mace export prints the files and refuses an unknown format', async () => {
    const ok = await runCli('export', db, '--format', 'csv', '--out', join(dir, 'cli'), '--json');
    assert.equal(ok.code, 0);
    assert.equal((JSON.parse(ok.stdout) as unknown[]).length, ALL.length);
    const bad = await runCli('export', db, '--format', 'xlsx', '--out', join(dir, 'x'));
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Allowed choices are parquet, arrow, csv/);
  });
});
