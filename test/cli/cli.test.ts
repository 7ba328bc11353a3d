import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildProgram } from '../../harness/cli/main.ts';
import { Store, closeAllStores } from '../../mace/store/store.ts';
import { finishRun, recordFailure, recordIteration, startRun } from '../../mace/store/writers.ts';
import { ROOT, runCli, tempDir } from '../helpers.ts';

after(closeAllStores);

describe('mace CLI', () => {
  it('lists every command in --help, and each has an example', async () => {
    const { code, stdout } = await runCli('--help');
    assert.equal(code, 0);
    const program = buildProgram({ io: { out() {}, err() {}, isTTY: false }, fail() {} });
    const leaves = program.commands.flatMap((c) =>
      c.commands.length ? c.commands.map((s) => [c.name(), s.name()]) : [[c.name()]],
    );
    assert.ok(leaves.length > 0);
    for (const [top] of leaves) assert.match(stdout, new RegExp(`\\n  ${top}\\b`));
    for (const path of leaves) {
      const help = await runCli(...path, '--help');
      assert.equal(help.code, 0, path.join(' '));
      assert.match(help.stdout, /Examples?:\n\s+\$ mace /, `${path.join(' ')} --help shows an example`);
    }
  });

  it('prints its version', async () => {
    const { code, stdout } = await runCli('--version');
    assert.equal(code, 0);
    assert.match(stdout, /^\d+\.\d+\.\d+\n$/);
  });

  it('exits 2 on bad usage and names the problem', async () => {
    const unknown = await runCli('results', '--nope');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown option '--nope'/);
    const badValue = await runCli('results', '--limit', 'x');
    assert.equal(badValue.code, 2);
    assert.match(badValue.stderr, /--limit <n>' argument 'x' is invalid. expected a positive integer/);
    const missing = await runCli('results', '--db', '/no/such/file.duckdb');
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no results database at \/no\/such\/file.duckdb/);
    const noCommand = await runCli('frobnicate');
    assert.equal(noCommand.code, 2);
  });

  it('runs as `npx mace` from another directory', () => {
    const out = execFileSync(join(ROOT, 'bin/mace.mjs'), ['--version'], { cwd: '/', encoding: 'utf8' });
    assert.match(out, /^\d+\.\d+\.\d+/);
    const bad = spawnSync(join(ROOT, 'bin/mace.mjs'), ['results', '--trace'], { cwd: '/', encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--trace needs --run-id/);
  });
});

describe('mace results', () => {
  const dir = tempDir();
  const db = join(dir, 'results.duckdb');

  it('lists runs, shows one, and prints its trace, as text and JSON', async () => {
    const store = await Store.open(db);
    await startRun(store, {
      runId: 'abc',
      objective: 'Pass addi.S',
      core: 'pico',
      mesh: [2, 2],
      workloads: ['addi.S'],
      method: 'mace',
    });
    await recordIteration(store, {
      runId: 'abc',
      iteration: 0,
      wallS: 12.5,
      usd: 0.01,
      tasks: [
        {
          taskId: 'base',
          kind: 'config',
          instruction: 'default caches',
          passed: false,
          buildSuccess: true,
          runVerdict: 'timeout',
          buildS: 10,
          runS: 2.5,
        },
      ],
    });
    await recordFailure(store, {
      runId: 'abc',
      iteration: 0,
      taskId: 'base',
      diagnosis: 'timeout',
      fix: 'add CONFIG_DISABLE_BIST_CLEAR',
      stage: 'triage',
    });
    await finishRun(store, 'abc', 'budget_exceeded');
    await closeAllStores();

    const list = await runCli('results', '--db', db);
    assert.equal(list.code, 0);
    assert.match(list.stdout, /abc\s+mace\s+-\s+pico\s+2x2\s+budget_exceeded/);
    assert.match(list.stdout, /0 of 1 run\(s\) passed; 12.5 s of execution/);

    const one = await runCli('results', '--db', db, '--run-id', 'abc');
    assert.match(one.stdout, /timeout\s+1\s+0/);

    const trace = await runCli('results', '--db', db, '--run-id', 'abc', '--trace');
    assert.match(trace.stdout, /iteration 0: 0\/1 task\(s\) passed/);
    assert.match(trace.stdout, /task base \(config\): default caches\s+-> verdict timeout/);
    assert.match(trace.stdout, /diagnosis: timeout \[triage\]/);
    assert.match(trace.stdout, /fix: add CONFIG_DISABLE_BIST_CLEAR/);

    const json = JSON.parse((await runCli('results', '--db', db, '--json')).stdout) as {
      run_id: string;
      iterations: number;
    }[];
    assert.deepEqual(
      json.map((r) => [r.run_id, r.iterations]),
      [['abc', 1]],
    );

    const unknown = await runCli('results', '--db', db, '--run-id', 'zzz');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no run zzz in/);
  });
});
