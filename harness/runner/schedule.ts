/**
 * Checkout leasing: jobs run as soon as enough checkouts are free, and a job never shares a checkout
 * with another (OpenPiton writes generated files into the tree it builds in). Jobs start in their
 * shuffled order; when the next job waits for more checkouts than are free, a later job that fits
 * may go first, but only as many times as there are checkouts: after that the waiting job gets
 * every checkout that frees up, so a job that needs them all is never starved.
 */

export interface Scheduled<J> {
  readonly job: J;
  /** How many checkouts it takes (clamped to the pool). */
  readonly checkouts: number;
}

export interface ScheduleControl {
  /** Checked before each start: once true, no further job starts and the running ones finish. */
  stopped(): boolean;
}

/**
 * Run every job on leased checkouts; resolves when all started jobs have finished. `run` must not
 * reject (a job's failure is its own business); it gets the roots leased to it.
 */
export async function runOnCheckouts<J>(
  jobs: readonly Scheduled<J>[],
  roots: readonly string[],
  run: (job: J, roots: readonly string[]) => Promise<void>,
  control: ScheduleControl = { stopped: () => false },
): Promise<void> {
  const free = [...roots];
  const queue = jobs.map((item) => ({ ...item, checkouts: Math.min(Math.max(1, item.checkouts), roots.length) }));
  const running = new Set<Promise<void>>();
  let headBypassed = 0;

  const next = (): number => {
    if (!queue.length) return -1;
    if (queue[0]!.checkouts <= free.length) return 0;
    if (headBypassed >= roots.length) return -1;
    return queue.findIndex((item) => item.checkouts <= free.length);
  };

  for (;;) {
    while (!control.stopped()) {
      const index = next();
      if (index < 0) break;
      if (index === 0) headBypassed = 0;
      else headBypassed++;
      const [item] = queue.splice(index, 1);
      // Lowest roots first, so a one-checkout sweep always uses the first root.
      free.sort((a, b) => roots.indexOf(a) - roots.indexOf(b));
      const leased = free.splice(0, item!.checkouts);
      const done: Promise<void> = run(item!.job, leased).finally(() => {
        free.push(...leased);
        running.delete(done);
      });
      running.add(done);
    }
    if (!running.size) return;
    await Promise.race(running);
  }
}
