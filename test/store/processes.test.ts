/**
 * The store across processes: DuckDB lets one process hold the file, so these check that readers
 * and writers in separate processes take turns, and that a writer killed with SIGKILL loses at
 * most the step in flight.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Store, closeAllStores } from '../../mace/store/store.ts';
import { query, runTrace } from '../../mace/store/readers.ts';
import { ROOT, tempDir } from '../helpers.ts';

after(closeAllStores);
const dir = tempDir();

function writer(
  db: string,
  prefix: string,
  count: number,
): { child: ChildProcess; committed: string[]; done: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test/fixtures/store-writer.ts'), db, prefix, String(count)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const committed: string[] = [];
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith('committed ')) committed.push(line.slice('committed '.length));
    }
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const done = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      if (code) process.stderr.write(stderr);
      resolve(code);
    }),
  );
  return { child, committed, done };
}

describe('several processes', () => {
  it('a reader queries while a writer appends', async () => {
    const db = join(dir, 'shared.duckdb');
    await Store.open(db);
    await closeAllStores();
    const w = writer(db, 'w', 30);
    const seen: number[] = [];
    let finished = false;
    void w.done.then(() => (finished = true));
    while (!finished) {
      const reader = await Store.openForRead(db, { lockTimeoutMs: 30_000 });
      const [row] = await query<{ n: number }>(
        reader,
        "SELECT count(*)::INTEGER AS n FROM runs WHERE status = 'passed'",
      );
      seen.push(row!.n);
      await closeAllStores();
    }
    assert.equal(await w.done, 0);
    assert.ok(seen.length >= 3, `the reader got in only ${seen.length} time(s)`);
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      seen,
      'counts never go backwards',
    );
    assert.ok(
      seen.some((n) => n > 0 && n < 30),
      `the reader saw the sweep in progress: ${seen.join(',')}`,
    );
    const reader = await Store.openForRead(db);
    const [row] = await query<{ n: number }>(reader, "SELECT count(*)::INTEGER AS n FROM runs WHERE status = 'passed'");
    assert.equal(row!.n, 30);
  });

  it('two writers take turns and lose nothing', async () => {
    const db = join(dir, 'two.duckdb');
    const a = writer(db, 'a', 15);
    const b = writer(db, 'b', 15);
    assert.deepEqual(await Promise.all([a.done, b.done]), [0, 0]);
    const reader = await Store.openForRead(db);
    const rows = await query<{ task: string; runs: number; tasks: number }>(
      reader,
      `SELECT r.task, count(DISTINCT r.run_id)::INTEGER AS runs, count(t.task_id)::INTEGER AS tasks
       FROM runs r JOIN tasks t USING (run_id) WHERE r.status = 'passed' GROUP BY r.task ORDER BY r.task`,
    );
    assert.deepEqual(rows, [
      { task: 'a', runs: 15, tasks: 45 },
      { task: 'b', runs: 15, tasks: 45 },
    ]);
  });

  it('a writer killed with SIGKILL mid-run leaves every committed run intact', async () => {
    const db = join(dir, 'killed.duckdb');
    const w = writer(db, 'k', 0);
    while (w.committed.length < 6) await new Promise((r) => setTimeout(r, 20));
    w.child.kill('SIGKILL');
    await w.done;
    const committed = [...w.committed];
    const reader = await Store.openForRead(db);
    for (const runId of committed) {
      const trace = await runTrace(reader, runId);
      assert.equal(trace?.run.status, 'passed', runId);
      assert.equal(trace?.iterations[0]?.tasks.length, 3, runId);
      assert.equal(trace?.iterations[0]?.llmCalls.length, 2, runId);
    }
    // The run in flight may be partly recorded, step by step, but never half a step.
    const partial = await query<{ run_id: string; status: string; tasks: number }>(
      reader,
      `SELECT r.run_id, r.status, (SELECT count(*) FROM tasks t WHERE t.run_id = r.run_id)::INTEGER AS tasks
       FROM runs r WHERE r.run_id NOT IN (${committed.map((_, i) => `$${i + 1}`).join(', ')})`,
      committed,
    );
    assert.ok(partial.length <= 1, `at most the run in flight is unfinished: ${JSON.stringify(partial)}`);
    for (const row of partial) {
      assert.ok([0, 3].includes(row.tasks), `its iteration step is whole: ${row.tasks} tasks`);
      assert.ok(['running', 'passed'].includes(row.status));
    }
  });
});
