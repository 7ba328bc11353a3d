import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { importOriginal } from '../../harness/analysis/original.ts';
import { openSqlite } from '../../harness/analysis/sqlite.ts';
import { getRun, query, runTrace } from '../../mace/store/readers.ts';
import { TABLE_NAMES } from '../../mace/store/schema.ts';
import { Store, closeAllStores } from '../../mace/store/store.ts';
import { runCli, tempDir } from '../helpers.ts';

after(closeAllStores);
const dir = tempDir();

/** The original's schema as mace/metrics.py created it (reference §5), plus ADDED_COLUMNS. */
const ORIGINAL_SCHEMA = `
CREATE TABLE runs (run_id TEXT PRIMARY KEY, objective TEXT NOT NULL, core TEXT NOT NULL, x_tiles INTEGER NOT NULL,
  y_tiles INTEGER NOT NULL, started_at REAL NOT NULL, finished_at REAL, status TEXT NOT NULL DEFAULT 'running');
CREATE TABLE iterations (run_id TEXT NOT NULL, iteration INTEGER NOT NULL, num_tasks INTEGER NOT NULL DEFAULT 0,
  num_passed INTEGER NOT NULL DEFAULT 0, wall_s REAL NOT NULL DEFAULT 0, usd REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, iteration));
CREATE TABLE tasks (run_id TEXT NOT NULL, iteration INTEGER NOT NULL, task_id TEXT NOT NULL, kind TEXT NOT NULL,
  spec TEXT NOT NULL, passed INTEGER NOT NULL, build_success INTEGER NOT NULL, run_verdict TEXT,
  wall_s REAL NOT NULL DEFAULT 0, PRIMARY KEY (run_id, iteration, task_id));
CREATE TABLE failures (run_id TEXT NOT NULL, iteration INTEGER NOT NULL, task_id TEXT NOT NULL, diagnosis TEXT NOT NULL,
  fix TEXT, recovered INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run_id, iteration, task_id));
CREATE TABLE post_mortems (run_id TEXT PRIMARY KEY, assessment TEXT NOT NULL, explanation TEXT, next_steps TEXT);
CREATE TABLE llm_calls (run_id TEXT NOT NULL, seq INTEGER NOT NULL, iteration INTEGER, phase TEXT NOT NULL,
  input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
  thinking_tokens INTEGER NOT NULL DEFAULT 0, usd REAL NOT NULL DEFAULT 0, wall_s REAL NOT NULL DEFAULT 0,
  ok INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (run_id, seq));
CREATE TABLE evaluations (run_id TEXT NOT NULL, idx INTEGER NOT NULL, round INTEGER NOT NULL, design TEXT NOT NULL,
  passed INTEGER NOT NULL, feasible INTEGER NOT NULL, sim_time INTEGER, area_um2 REAL, read_energy_nj REAL,
  area_source TEXT, wall_s REAL NOT NULL DEFAULT 0, PRIMARY KEY (run_id, idx));
CREATE TABLE resimulations (run_id TEXT NOT NULL, task_id TEXT NOT NULL, program TEXT NOT NULL, verdict TEXT,
  passed INTEGER NOT NULL, wall_s REAL NOT NULL DEFAULT 0, PRIMARY KEY (run_id, task_id, program));`;

const ADDED_COLUMNS = `
ALTER TABLE runs ADD COLUMN method TEXT; ALTER TABLE runs ADD COLUMN task TEXT; ALTER TABLE runs ADD COLUMN repeat INTEGER;
ALTER TABLE runs ADD COLUMN seed INTEGER; ALTER TABLE runs ADD COLUMN meta TEXT;
ALTER TABLE tasks ADD COLUMN caches TEXT; ALTER TABLE tasks ADD COLUMN module TEXT; ALTER TABLE tasks ADD COLUMN build_s REAL;
ALTER TABLE tasks ADD COLUMN run_s REAL; ALTER TABLE tasks ADD COLUMN programs TEXT; ALTER TABLE tasks ADD COLUMN evidence TEXT;
ALTER TABLE tasks ADD COLUMN config_rtl TEXT; ALTER TABLE llm_calls ADD COLUMN reply TEXT;
ALTER TABLE evaluations ADD COLUMN simulated INTEGER NOT NULL DEFAULT 1;
ALTER TABLE evaluations ADD COLUMN rejected TEXT NOT NULL DEFAULT '';`;

const STARTED = 1764410400.25; // 2025-11-29T10:00:00.250Z

async function writeSqlite(name: string, sql: string): Promise<string> {
  const db = await openSqlite();
  db.exec(sql);
  const path = join(dir, name);
  writeFileSync(path, db.export());
  db.close();
  return path;
}

/** A newest-schema file as a suite batch left it: one seeded-fault run, one co-design search. */
const NEWEST = `${ORIGINAL_SCHEMA}${ADDED_COLUMNS}
ALTER TABLE runs ADD COLUMN operator_note TEXT;
CREATE TABLE scratch (x INTEGER);
INSERT INTO runs VALUES ('a1b2c3d4e5f6', 'Pass addi.S on 2x2', 'pico', 2, 2, ${STARTED}, ${STARTED + 70.5}, 'passed',
  'seeded_drop_bist', 'pico-2x2-addi', 0, NULL,
  '{"backend": "vertex", "fault": "drop_bist", "host": "vm1", "model": "gemini-2.5-flash"}', 'rerun after fix 11');
INSERT INTO runs VALUES ('0123456789ab', 'co-design', 'ariane', 2, 2, ${STARTED + 100}, NULL, 'running',
  'codesign_random', 'ariane-2x2-cd', 1, 1, '{"backend": null, "model": null}', NULL);
INSERT INTO iterations VALUES ('a1b2c3d4e5f6', 0, 1, 0, 40.0, 0.01), ('a1b2c3d4e5f6', 1, 1, 1, 30.5, 0.02);
INSERT INTO tasks VALUES ('a1b2c3d4e5f6', 0, 'base', 'config', 'pico defaults', 0, 1, 'timeout', 38.0,
  '{"l1d": [8192, 4]}', NULL, 8.0, 30.0, '[["addi.S", "timeout"]]', 'Build flags: -x', '[]');
INSERT INTO tasks VALUES ('a1b2c3d4e5f6', 1, 'bist', 'config', 'add the define', 1, 1, 'pass', 29.0,
  NULL, NULL, 0.0, 29.0, '[["addi.S", "pass"]]', NULL, '["CONFIG_DISABLE_BIST_CLEAR"]');
INSERT INTO failures VALUES ('a1b2c3d4e5f6', 0, 'base', 'timeout', 'add CONFIG_DISABLE_BIST_CLEAR', 1);
INSERT INTO llm_calls VALUES ('a1b2c3d4e5f6', 0, 0, 'plan', 1200, 300, 900, 0.0033, 4.5, 1, 'TASK: base | deps= | kind=config | x'),
  ('a1b2c3d4e5f6', 1, 0, 'triage', 0, 0, 0, 0, 1.0, 0, NULL);
INSERT INTO evaluations VALUES ('0123456789ab', 0, 0, '{"caches": {"l2": [65536, 4]}, "network": null}', 1, 1, 127013250,
  1.5e6, NULL, 'analytical', 100.0, 1, ''), ('0123456789ab', 1, 0, '{"caches": {}}', 0, 0, NULL, NULL, NULL, NULL, 0, 0,
  'over the area budget');
INSERT INTO resimulations VALUES ('a1b2c3d4e5f6', 'bist', 'addi.S', 'pass', 1, 3.0);
INSERT INTO post_mortems VALUES ('0123456789ab', 'inconclusive', 'ran out', NULL);`;

describe('mace import', () => {
  it('converts every table, types included, and reports unknown columns and tables', async () => {
    const source = await writeSqlite('newest.db', NEWEST);
    const db = join(dir, 'newest.duckdb');
    const report = await importOriginal(source, db);
    assert.deepEqual(
      report.tables.map((t) => [t.table, t.rows]),
      [
        ['runs', 2],
        ['iterations', 2],
        ['tasks', 2],
        ['failures', 1],
        ['post_mortems', 1],
        ['llm_calls', 2],
        ['evaluations', 2],
        ['resimulations', 1],
      ],
    );
    assert.deepEqual(report.tables.find((t) => t.table === 'runs')!.unknown, ['operator_note']);
    assert.deepEqual(report.unknown_tables, ['scratch']);
    assert.deepEqual(report.missing_tables, []);
    assert.ok(report.tables.every((t) => t.missing.length === 0));

    const store = await Store.openForRead(db);
    const run = (await getRun(store, 'a1b2c3d4e5f6'))!;
    assert.equal(run.started_at.getTime(), STARTED * 1000);
    assert.equal(run.finished_at!.getTime(), (STARTED + 70.5) * 1000);
    assert.deepEqual(
      [run.method, run.task, run.repeat, run.status],
      ['seeded_drop_bist', 'pico-2x2-addi', 0, 'passed'],
    );
    assert.deepEqual([run.backend, run.model, run.fault], ['vertex', 'gemini-2.5-flash', 'drop_bist']);
    assert.equal(run.meta!.host, 'vm1');
    assert.equal(run.meta!.imported_from, 'newest.db');
    const trace = (await runTrace(store, 'a1b2c3d4e5f6'))!;
    const [first, second] = trace.iterations;
    assert.deepEqual(first!.tasks[0]!.programs, [['addi.S', 'timeout', null]]);
    assert.deepEqual(first!.tasks[0]!.caches, { l1d: [8192, 4] });
    assert.equal(first!.tasks[0]!.passed, false);
    assert.deepEqual(second!.tasks[0]!.config_rtl, ['CONFIG_DISABLE_BIST_CLEAR']);
    assert.deepEqual(first!.tasks[0]!.failure!.recovered, true);
    assert.equal(first!.tasks[0]!.failure!.stage, null, 'a stage the original never recorded is not invented');
    assert.deepEqual(
      first!.llmCalls.map((c) => [c.phase, c.thinking_tokens, c.ok]),
      [
        ['plan', 900, true],
        ['triage', 0, false],
      ],
    );
    const [evaluation] = await query<{ design: string; simulated: boolean }>(
      store,
      "SELECT design, simulated FROM evaluations WHERE run_id = '0123456789ab' AND idx = 1",
    );
    assert.deepEqual(JSON.parse(evaluation!.design), { caches: {} });
    assert.equal(evaluation!.simulated, false);
  });

  it('is idempotent: importing the same file again changes nothing', async () => {
    const source = await writeSqlite('again.db', NEWEST);
    const db = join(dir, 'again.duckdb');
    const dump = async () => {
      const store = await Store.openForRead(db);
      const out: Record<string, unknown[]> = {};
      for (const table of TABLE_NAMES) out[table] = await query(store, `SELECT * FROM ${table} ORDER BY ALL`);
      return out;
    };
    await importOriginal(source, db);
    const once = await dump();
    await importOriginal(source, db);
    assert.deepEqual(await dump(), once);
  });

  it('reads a file from before ADDED_COLUMNS, reporting what it lacks', async () => {
    const source = await writeSqlite(
      'old.db',
      `${ORIGINAL_SCHEMA}
      INSERT INTO runs VALUES ('oldrun', 'Pass addi.S', 'pico', 1, 1, ${STARTED}, ${STARTED + 9.8}, 'passed');
      INSERT INTO tasks VALUES ('oldrun', 0, 'base', 'config', 'x', 1, 1, 'pass', 9.8);`,
    );
    const db = join(dir, 'old.duckdb');
    const report = await importOriginal(source, db);
    assert.deepEqual(report.tables.find((t) => t.table === 'runs')!.missing, [
      'method',
      'task',
      'repeat',
      'seed',
      'meta',
    ]);
    assert.deepEqual(report.tables.find((t) => t.table === 'tasks')!.missing, [
      'caches',
      'module',
      'build_s',
      'run_s',
      'programs',
      'evidence',
      'config_rtl',
    ]);
    const run = (await getRun(await Store.openForRead(db), 'oldrun'))!;
    assert.equal(run.method, null);
    assert.deepEqual(run.meta, { imported_from: 'old.db' });
  });

  it('refuses a file that lacks a column it needs, or is not SQLite, naming what is wrong', async () => {
    const broken = await writeSqlite(
      'broken.db',
      ORIGINAL_SCHEMA.replace('kind TEXT NOT NULL,', '').replace(/CREATE TABLE runs[^;]*;/, ''),
    );
    await assert.rejects(
      importOriginal(broken, join(dir, 'broken.duckdb')),
      /broken.db: table tasks has no column kind/,
    );
    const notSqlite = join(dir, 'text.db');
    writeFileSync(notSqlite, 'hello');
    const cli = await runCli('import', notSqlite, '--db', join(dir, 'x.duckdb'));
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /text.db is not an SQLite database/);
    const badValue = await writeSqlite(
      'bad-value.db',
      `${ORIGINAL_SCHEMA} INSERT INTO runs VALUES ('r', 'o', 'pico', 1, 1, 'yesterday', NULL, 'failed');`,
    );
    await assert.rejects(
      importOriginal(badValue, join(dir, 'bad.duckdb')),
      /bad-value.db: runs row 1, column started_at: expected epoch seconds, found "yesterday"/,
    );
  });

  it('prints what it imported, and the result reports', async () => {
    const source = await writeSqlite('cli.db', NEWEST);
    const db = join(dir, 'cli.duckdb');
    const { code, stdout } = await runCli('import', source, '--db', db);
    assert.equal(code, 0);
    assert.match(stdout, /runs\s+2\s+-\s+operator_note/);
    assert.match(stdout, /unknown tables \(not imported\): scratch/);
    const report = await runCli('report', db, '--resamples', '100');
    assert.equal(report.code, 0);
    assert.match(report.stdout, /\| drop_bist \| seeded_drop_bist \| 1 \| 1 \| 1\/1 100%/);
  });
});
