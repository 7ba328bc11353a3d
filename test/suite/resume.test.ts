import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JobParts } from '../../harness/runner/jobs.ts';
import { describeState, indexRuns, isTodo, jobState, priorRuns } from '../../harness/runner/resume.ts';
import { FINISHED_STATUSES, type RunStatus } from '../../mace/spec.ts';
import { Store, closeAllStores } from '../../mace/store/store.ts';
import { finishRun, startRun } from '../../mace/store/writers.ts';
import { tempDir } from '../helpers.ts';

after(closeAllStores);

const parts: JobParts = { task: 't1', budget: 'b1', method: 'm1', llm: 'l1', checkouts: 'c1', seed: 1 };
const dir = tempDir();
const db = join(dir, 'resume.duckdb');
const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
after(() => sleeper.kill());

/** A run of job (task, 'mace', repeat) with this key, status and runner pid. */
async function record(task: string, repeat: number, key: string, status: RunStatus, pid = 999_999, jobParts = parts) {
  const store = await Store.open(db);
  const runId = `${task}-${repeat}-${status}-${Math.random().toString(36).slice(2, 8)}`;
  await startRun(store, {
    runId,
    objective: 'o',
    core: 'pico',
    mesh: [2, 2],
    workloads: ['addi.S'],
    method: 'mace',
    task,
    repeat,
    jobKey: key,
    meta: { job: jobParts, runner: { pid, host: hostname(), sweep_id: 's' } },
  });
  if (status !== 'running') await finishRun(store, runId, status, status === 'error' ? { error: 'boom' } : {});
  return runId;
}

const state = async (task: string, repeat: number, key: string, jobParts = parts) =>
  jobState({ key, parts: jobParts, task, method: 'mace', repeat }, indexRuns(await priorRuns(db)));

describe('resume', () => {
  it('holds nothing in a database that does not exist yet', async () => {
    assert.deepEqual(await priorRuns(join(dir, 'none.duckdb')), []);
    assert.equal((await state('a', 0, 'k')).kind, 'new');
  });

  it('skips a job whose run finished, whatever the outcome', async () => {
    let repeat = 0;
    for (const status of FINISHED_STATUSES) {
      const runId = await record('fin', repeat, `fin/${repeat}`, status);
      const s = await state('fin', repeat, `fin/${repeat}`);
      assert.deepEqual(s, { kind: 'done', runId, status }, status);
      assert.equal(isTodo(s), false);
      repeat++;
    }
    assert.equal(repeat, 6);
  });

  it('runs again a job whose run ended in error', async () => {
    const runId = await record('err', 0, 'err/0', 'error');
    const s = await state('err', 0, 'err/0');
    assert.deepEqual(s, { kind: 'error', runId, error: 'boom' });
    assert.ok(isTodo(s));
    assert.match(describeState(s), /ended in error: boom/);
  });

  it('runs again a job left running by a process that is gone, not one a live process is running', async () => {
    const dead = await record('run', 0, 'run/0', 'running', 999_999);
    assert.deepEqual(await state('run', 0, 'run/0'), { kind: 'unfinished', runId: dead });
    const live = await record('run', 1, 'run/1', 'running', sleeper.pid!);
    const s = await state('run', 1, 'run/1');
    assert.deepEqual(s, { kind: 'live', runId: live, pid: sleeper.pid });
    assert.equal(isTodo(s), false);
    const mine = await record('run', 2, 'run/2', 'running', process.pid);
    assert.deepEqual(
      await state('run', 2, 'run/2'),
      { kind: 'unfinished', runId: mine },
      'this process runs none of them',
    );
  });

  it('a finished run counts even when a later one of the job failed', async () => {
    const first = await record('twice', 0, 'twice/0', 'passed');
    await record('twice', 0, 'twice/0', 'error');
    assert.deepEqual(await state('twice', 0, 'twice/0'), { kind: 'done', runId: first, status: 'passed' });
  });

  it('runs a job whose definition changed since its run, and says what changed', async () => {
    const runId = await record('edit', 0, 'edit/0/old', 'passed');
    const edited = { ...parts, task: 't2', budget: 'b2' };
    const s = await state('edit', 0, 'edit/0/new', edited);
    assert.deepEqual(s, { kind: 'changed', changed: ['task entry', 'budget'], runId });
    assert.match(describeState(s), /changed since run .*: task entry, budget/);
    assert.deepEqual(await state('edit', 1, 'edit/1/new', edited), { kind: 'new' }, 'another repeat is new');
  });
});
