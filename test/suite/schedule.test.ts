import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { runOnCheckouts } from '../../harness/runner/schedule.ts';

interface Span {
  readonly job: string;
  readonly roots: readonly string[];
  readonly start: number;
  end: number;
}

/** Run jobs that hold their checkouts for `ms` each, recording who held what when. */
async function simulate(jobs: readonly { name: string; checkouts: number; ms: number }[], roots: readonly string[]) {
  const spans: Span[] = [];
  const t0 = performance.now();
  await runOnCheckouts(
    jobs.map((job) => ({ job, checkouts: job.checkouts })),
    roots,
    async (job, leased) => {
      const span: Span = { job: job.name, roots: leased, start: performance.now() - t0, end: 0 };
      spans.push(span);
      await sleep(job.ms);
      span.end = performance.now() - t0;
    },
  );
  return spans;
}

const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end;

function maxConcurrent(spans: readonly Span[]): number {
  return Math.max(...spans.map((s) => spans.filter((o) => o.start <= s.start && s.start < o.end).length));
}

describe('checkout leasing', () => {
  it('never gives one checkout to two jobs at once', async () => {
    const jobs = Array.from({ length: 12 }, (_, i) => ({
      name: `j${i}`,
      checkouts: i % 3 === 0 ? 2 : 1,
      ms: 5 + (i % 4) * 7,
    }));
    const spans = await simulate(jobs, ['a', 'b', 'c']);
    assert.equal(spans.length, 12);
    for (const a of spans)
      for (const b of spans)
        if (a !== b && overlaps(a, b))
          assert.ok(!a.roots.some((r) => b.roots.includes(r)), `${a.job} and ${b.job} share`);
    assert.ok(spans.every((s) => new Set(s.roots).size === s.roots.length));
  });

  it('runs three one-checkout jobs at once on three checkouts', async () => {
    const spans = await simulate(
      Array.from({ length: 6 }, (_, i) => ({ name: `j${i}`, checkouts: 1, ms: 40 })),
      ['a', 'b', 'c'],
    );
    assert.equal(maxConcurrent(spans), 3);
  });

  it('behaves like the original with one checkout: one job at a time, in order', async () => {
    const jobs = Array.from({ length: 4 }, (_, i) => ({ name: `j${i}`, checkouts: i % 2 ? 1 : 3, ms: 5 }));
    const spans = await simulate(jobs, ['only']);
    assert.equal(maxConcurrent(spans), 1);
    assert.deepEqual(
      spans.map((s) => s.job),
      ['j0', 'j1', 'j2', 'j3'],
    );
  });

  it('lets a later job go ahead of one waiting for more checkouts, a bounded number of times', async () => {
    // j0 holds one of two checkouts for a while; j1 wants both; the one-checkout jobs behind it may
    // pass it at most twice (the pool's size), then j1 gets the next checkouts that free up.
    const jobs = [
      { name: 'j0', checkouts: 1, ms: 60 },
      { name: 'j1', checkouts: 2, ms: 5 },
      ...Array.from({ length: 6 }, (_, i) => ({ name: `s${i}`, checkouts: 1, ms: 20 })),
    ];
    const spans = await simulate(jobs, ['a', 'b']);
    const order = spans.map((s) => s.job);
    assert.ok(order.indexOf('j1') <= 3, order.join(' '));
    assert.ok(order.indexOf('s0') < order.indexOf('j1'), 'the free checkout was used while j1 waited');
  });

  it('starts nothing once stopped, and waits for the running jobs', async () => {
    let started = 0;
    let stop = false;
    await runOnCheckouts(
      Array.from({ length: 5 }, (_, i) => ({ job: i, checkouts: 1 })),
      ['a', 'b'],
      async () => {
        started++;
        stop = true;
        await sleep(10);
      },
      { stopped: () => stop },
    );
    assert.equal(started, 1);
  });
});
