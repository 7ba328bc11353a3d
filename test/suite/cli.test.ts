/**
 * `mace suite` and `mace run` as a user runs them: separate processes on offline checkouts (speed 0,
 * no login shell) with the scripted agent. A sweep runs to the end and prints the report; run again
 * it runs nothing; killed with SIGKILL part-way (while a source fault is planted) and run again, it
 * restores the fault and finishes the rest, every job recorded exactly once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { sweepReport } from '../../harness/runner/sweeps.ts';
import { FAULT_BACKUP_DIR } from '../../mace/openpiton/edits.ts';
import { FINISHED_STATUSES, type RunStatus } from '../../mace/spec.ts';
import { closeAllStores } from '../../mace/store/store.ts';
import { ROOT, runCli } from '../helpers.ts';
import {
  ARIANE_TASK,
  FAULTED_FILE,
  PICO_RTL_FAULT_TASK,
  PICO_TASK,
  labHome,
  recordedRuns,
  suiteText,
  writeSuite,
} from './support.ts';

after(closeAllStores);

const dir = labHome();
const offline = () =>
  existsSync(join(process.env.MACE_HOME!, 'offline'))
    ? readdirSync(join(process.env.MACE_HOME!, 'offline')).filter((n) => /^checkout-\d+$/.test(n))
    : [];

interface Child {
  readonly done: Promise<number | null>;
  stdout(): string;
  kill(signal?: NodeJS.Signals): void;
}

function mace(...args: string[]): Child {
  const child = spawn(process.execPath, [join(ROOT, 'bin/mace.mjs'), ...args], {
    cwd: dir,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { done, stdout: () => out, kill: (signal = 'SIGKILL') => child.kill(signal) };
}

async function until(condition: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('mace suite run', () => {
  const suite = writeSuite(
    dir,
    suiteText({ name: 'small', methods: '[mace, expert]', tasks: PICO_TASK + ARIANE_TASK }),
    'small.yaml',
  );

  it('runs a suite to the end offline, says how it goes, and prints the report', async () => {
    const run = mace('suite', 'run', 'small.yaml');
    await until(() => /\[1\/4\]/.test(run.stdout()), 'the first finished job');
    const live = await sweepReport(join(dir, 'runs/small.duckdb'));
    assert.equal(live.state, 'running');
    assert.equal(live.counts.total, 4);
    assert.equal(await run.done, 0, run.stdout());
    const out = run.stdout();
    assert.match(out, /suite small \(small\.yaml\): 4 jobs, 4 to run \(4 new\), 0 already done/);
    assert.match(out, /\[4\/4\] \S+ (mace|expert) r0: passed in [\d.]+ s, \$[\d.]+ LLM, run [0-9a-f]{12}/);
    assert.match(out, /--- ran 4, skipped 0 already done, 0 errors/);
    assert.match(out, /# MACE-TS report/);
    assert.match(out, /\| mace \| reference \|/);
    // The figures beside the database, drawn from the same analysis.
    assert.match(out, /figures: \d+ written to runs\/small-figures\//);
    const figures = JSON.parse(readFileSync(join(dir, 'runs/small-figures/figures.json'), 'utf8')) as {
      figures: { name: string }[];
    };
    assert.ok(figures.figures.some((f) => f.name === 'pass_rate'), 'the pass-rate figure is among them');
    assert.ok(existsSync(join(dir, 'runs/small-figures/pass_rate.png')));
  });

  it('runs no job when run again, and the status says the sweep finished', async () => {
    const again = mace('suite', 'run', suite, '--no-report');
    assert.equal(await again.done, 0, again.stdout());
    assert.match(again.stdout(), /--- ran 0, skipped 4 already done, 0 errors/);
    const status = await runCli('suite', 'status', '--db', join(dir, 'runs/small.duckdb'));
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /sweep [0-9a-f]{12} of suite small .*: finished/);
    assert.match(status.stdout, /0\/0 done, 0 running, 0 left/);
  });

  it('lists done and todo jobs on a dry run, with what is left expected to cost', async () => {
    const more = writeSuite(
      dir,
      suiteText({ name: 'small', methods: '[mace, expert]', tasks: PICO_TASK + ARIANE_TASK, repeats: 2 }),
      'more.yaml',
    );
    const dry = await runCli('suite', 'run', more, '--db', join(dir, 'runs/small.duckdb'), '--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /done +pico-2x2-addi +mace +0 +done \(passed, run [0-9a-f]{12}\)/);
    assert.match(dry.stdout, /todo +pico-2x2-addi +mace +1 +todo \(new\)/);
    assert.match(dry.stdout, /2 of 6 jobs to run/);
    assert.match(dry.stdout, /expected for 2 of them .*: \S+ of job time .*\$[\d.]+ LLM \+ \$[\d.]+ compute/);
  });

  /** A sweep of six jobs, sent Ctrl-C once its first job has finished. */
  async function interrupted(name: string): Promise<{ run: Child; db: string }> {
    const text = suiteText({ name, methods: '[mace, expert]', tasks: PICO_TASK + ARIANE_TASK, repeats: 2 });
    writeSuite(dir, text, `${name}.yaml`);
    const run = mace('suite', 'run', `${name}.yaml`, '--no-report');
    await until(() => /\[1\/6\]/.test(run.stdout()), 'the first finished job');
    run.kill('SIGINT');
    return { run, db: join(dir, `runs/${name}.duckdb`) };
  }

  it('on Ctrl-C starts no new job and lets the running ones finish', async () => {
    const { run, db } = await interrupted('stop');
    assert.equal(await run.done, 1, run.stdout());
    assert.match(run.stdout(), /Ctrl-C: no new job starts; the running ones finish/);
    assert.match(run.stdout(), /stopped before every job ran; run the same command again to finish the rest/);
    const runs = await recordedRuns(db);
    assert.ok(runs.length < 6, 'some jobs never started');
    assert.ok(
      runs.every((r) => FINISHED_STATUSES.has(r.status as RunStatus)),
      'the running jobs finished',
    );
    assert.equal((await sweepReport(db)).state, 'stopped');
  });

  it('on a second Ctrl-C cancels the running jobs, recorded as errors to run again', async () => {
    const { run, db } = await interrupted('cancel');
    await until(() => /Ctrl-C: no new job starts/.test(run.stdout()), 'the first notice');
    run.kill('SIGINT');
    assert.equal(await run.done, 1, run.stdout());
    assert.match(run.stdout(), /SIGINT: cancelling the running jobs/);
    const runs = await recordedRuns(db);
    assert.ok(
      runs.every((r) => r.status !== 'running'),
      'nothing left running',
    );
    const cancelled = runs.filter((r) => r.status === 'error');
    assert.ok(cancelled.length >= 1, run.stdout());
    assert.equal((await sweepReport(db)).state, 'cancelled');
    const dry = await runCli('suite', 'run', join(dir, 'cancel.yaml'), '--db', db, '--dry-run');
    for (const r of cancelled)
      assert.match(dry.stdout, new RegExp(`run ${r.run_id} ended in error: (Error: )?cancelled`));
  });

  it('after a SIGKILL part-way, restores the planted fault and finishes the rest, each job once', async () => {
    const text = suiteText({
      name: 'crash',
      methods: '[expert, retry_agent]',
      tasks: PICO_TASK + PICO_RTL_FAULT_TASK + ARIANE_TASK,
    });
    writeSuite(dir, text, 'crash.yaml');
    const db = join(dir, 'runs/crash.duckdb');
    // Planted: the backup's manifest is written and the file carries the fault.
    const planted = () =>
      offline().find((c) => {
        const root = join(process.env.MACE_HOME!, 'offline', c);
        return (
          existsSync(join(root, FAULT_BACKUP_DIR, 'manifest.json')) &&
          existsSync(join(root, FAULTED_FILE)) &&
          readFileSync(join(root, FAULTED_FILE), 'utf8').includes('mem_readyx')
        );
      });
    const first = mace('suite', 'run', 'crash.yaml', '--no-report');
    await until(() => planted() !== undefined, 'a planted source fault');
    first.kill();
    await first.done;
    const checkout = join(process.env.MACE_HOME!, 'offline', planted()!);
    assert.match(readFileSync(join(checkout, FAULTED_FILE), 'utf8'), /mem_readyx/, 'the kill left the fault planted');
    assert.equal((await sweepReport(db)).state, 'died');
    const before = await recordedRuns(db);
    assert.ok(before.filter((r) => r.status !== 'running').length < 6, 'killed part-way');
    // The kill may land before the job recorded its run; a run it did record is left `running`.
    const orphans = before.filter((r) => r.status === 'running');

    const second = mace('suite', 'run', 'crash.yaml', '--no-report');
    assert.equal(await second.done, 0, second.stdout());
    assert.doesNotMatch(readFileSync(join(checkout, FAULTED_FILE), 'utf8'), /mem_readyx/, 'restored on the next start');
    for (const orphan of orphans)
      assert.match(
        second.stdout(),
        new RegExp(`again: .*run ${orphan.run_id} was left running by a process that is gone`),
      );
    const runs = await recordedRuns(db);
    const finished = runs.filter((r) => FINISHED_STATUSES.has(r.status as RunStatus));
    assert.equal(finished.length, 6);
    assert.equal(new Set(finished.map((r) => r.job_key)).size, 6, 'every job finished exactly once');
    assert.ok(runs.every((r) => FINISHED_STATUSES.has(r.status as RunStatus) || r.status === 'running'));
  });
});

describe('mace suite schema and mace run', () => {
  it('prints the suite format as JSON Schema', async () => {
    const { code, stdout } = await runCli('suite', 'schema');
    assert.equal(code, 0);
    const schema = JSON.parse(stdout);
    assert.deepEqual(Object.keys(schema.properties), ['version', 'name', 'description', 'study', 'tasks']);
    assert.equal(schema.additionalProperties, false);
  });

  it('runs one loop from flags on offline checkouts and says where its records are', async () => {
    const db = join(dir, 'one.duckdb');
    const { code, stdout, stderr } = await runCli(
      'run',
      '--core',
      'pico',
      '--mesh',
      '2x2',
      '--workload',
      'addi.S',
      '--objective',
      'Verify addi.S passes on a 2x2 pico mesh. That task needs the CONFIG_DISABLE_BIST_CLEAR RTL define.',
      '--no-login-shell',
      '--options',
      'narrowing=false',
      '--max-iterations',
      '2',
      '--db',
      db,
    );
    assert.equal(code, 0, stderr);
    assert.match(stdout, /iteration 0: 1 task\(s\)/);
    assert.match(stdout, /status: passed/);
    const id = /--run-id ([0-9a-f]{12}) --trace/.exec(stdout)?.[1];
    assert.ok(id, stdout);
    const [run] = await recordedRuns(db);
    assert.equal(run!.run_id, id);
    assert.equal(JSON.parse(run!.options!).narrowing, false);
    const bad = await runCli(
      'run',
      '--mesh',
      '2x2',
      '--workload',
      'addi.S',
      '--objective',
      'x',
      '--options',
      'narowing=false',
    );
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown key "narowing"/);
  });
});
