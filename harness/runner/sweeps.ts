/**
 * The sweeps table: one row per `mace suite run`, written when it starts and when it ends, so
 * `mace suite status --db PATH` can follow a sweep from another terminal (its runs carry the sweep's
 * id in runs.meta.runner). A sweep whose row still says running but whose process is gone died.
 */
import { hostname } from 'node:os';
import { z } from 'zod';
import { InputError } from '../../mace/errors.ts';
import { Store } from '../../mace/store/store.ts';
import type { Suite } from '../suite/load.ts';
import { processAlive } from './claim.ts';
import type { SweepCounts } from './counts.ts';

export const SWEEP_STATUSES = ['running', 'finished', 'stopped', 'cancelled'] as const;
export type SweepStatus = (typeof SWEEP_STATUSES)[number];

export interface NewSweep {
  readonly sweepId: string;
  readonly suite: Pick<Suite, 'name' | 'file' | 'hash'>;
  /** Every job of the suite, and those this sweep set out to run. */
  readonly jobs: number;
  readonly todo: number;
  readonly checkouts: number;
  readonly labels: Readonly<Record<string, string>>;
}

export async function startSweep(store: Store, sweep: NewSweep): Promise<void> {
  await store.write((tx) =>
    tx.upsert('sweeps', {
      sweep_id: sweep.sweepId,
      suite: sweep.suite.name,
      suite_file: sweep.suite.file,
      suite_hash: sweep.suite.hash,
      started_at: new Date(),
      status: 'running',
      jobs: sweep.jobs,
      todo: sweep.todo,
      checkouts: sweep.checkouts,
      host: hostname(),
      pid: process.pid,
      labels: sweep.labels,
    }),
  );
}

export async function finishSweep(
  store: Store,
  sweepId: string,
  status: Exclude<SweepStatus, 'running'>,
): Promise<void> {
  await store.write((tx) => tx.update('sweeps', { sweep_id: sweepId }, { status, finished_at: new Date() }));
}

const CostSchema = z.object({ llm_usd: z.number(), machine_s: z.number() });

/** A run's LLM dollars and machine seconds (builds, simulations and narrowing probes). */
export async function jobCost(store: Store, runId: string): Promise<{ llmUsd: number; machineS: number }> {
  const row = await store.read((q) =>
    q.one(
      `SELECT coalesce((SELECT sum(usd) FROM llm_calls WHERE run_id = $1), 0)::DOUBLE AS llm_usd,
              (coalesce((SELECT sum(wall_s) FROM tasks WHERE run_id = $1), 0)
               + coalesce((SELECT sum(wall_s) FROM probes WHERE run_id = $1), 0))::DOUBLE AS machine_s`,
      [runId],
    ),
  );
  const cost = CostSchema.parse(row);
  return { llmUsd: cost.llm_usd, machineS: cost.machine_s };
}

const SweepRowSchema = z.object({
  sweep_id: z.string(),
  suite: z.string(),
  suite_file: z.string().nullable(),
  started_at: z.date(),
  finished_at: z.date().nullable(),
  status: z.enum(SWEEP_STATUSES),
  jobs: z.number(),
  todo: z.number(),
  checkouts: z.number(),
  host: z.string().nullable(),
  pid: z.number().nullable(),
});

const RunningSchema = z.object({
  run_id: z.string(),
  task: z.string(),
  method: z.string(),
  repeat: z.number(),
  started_at: z.date(),
});

export interface SweepReport {
  readonly sweep: z.infer<typeof SweepRowSchema>;
  /** running while its process lives; died when the row says running and the process is gone. */
  readonly state: SweepStatus | 'died';
  readonly counts: SweepCounts;
  readonly running: readonly (z.infer<typeof RunningSchema> & { readonly elapsed_s: number })[];
}

/** Where a sweep stands (the latest one unless `sweepId` is given), read from the database alone. */
export async function sweepReport(db: string, sweepId?: string): Promise<SweepReport> {
  const store = await Store.openForRead(db);
  return store.read(async (q) => {
    const row = await q.one(
      sweepId ? 'SELECT * FROM sweeps WHERE sweep_id = $1' : 'SELECT * FROM sweeps ORDER BY started_at DESC LIMIT 1',
      sweepId ? [sweepId] : [],
    );
    if (!row)
      throw new InputError(
        sweepId
          ? `no sweep ${sweepId} in ${db}`
          : `no sweep recorded in ${db} (run \`mace suite run SUITE --db ${db}\`)`,
      );
    const sweep = SweepRowSchema.parse(row);
    const mine = `json_extract_string(meta, '$.runner.sweep_id') = $1`;
    const totals = z.object({ done: z.number(), passed: z.number(), errors: z.number() }).parse(
      await q.one(
        `SELECT count(*) FILTER (WHERE status <> 'running')::INTEGER AS done,
                  count(*) FILTER (WHERE status = 'passed')::INTEGER AS passed,
                  count(*) FILTER (WHERE status = 'error')::INTEGER AS errors
           FROM runs WHERE ${mine}`,
        [sweep.sweep_id],
      ),
    );
    const cost = CostSchema.parse(
      await q.one(
        `WITH r AS (SELECT run_id FROM runs WHERE ${mine} AND status <> 'running')
         SELECT coalesce((SELECT sum(usd) FROM llm_calls WHERE run_id IN (SELECT run_id FROM r)), 0)::DOUBLE AS llm_usd,
                (coalesce((SELECT sum(wall_s) FROM tasks WHERE run_id IN (SELECT run_id FROM r)), 0)
                 + coalesce((SELECT sum(wall_s) FROM probes WHERE run_id IN (SELECT run_id FROM r)), 0))::DOUBLE AS machine_s`,
        [sweep.sweep_id],
      ),
    );
    const alive = sweep.pid !== null && processAlive(sweep.pid, sweep.host ?? '');
    const state: SweepReport['state'] = sweep.status === 'running' && !alive ? 'died' : sweep.status;
    const running =
      state === 'running'
        ? (
            await q.all(
              `SELECT run_id, task, method, repeat, started_at FROM runs WHERE ${mine} AND status = 'running' ORDER BY started_at`,
              [sweep.sweep_id],
            )
          ).map((r) => RunningSchema.parse(r))
        : [];
    const end = sweep.finished_at?.getTime() ?? Date.now();
    return {
      sweep,
      state,
      running: running.map((r) => ({ ...r, elapsed_s: (Date.now() - r.started_at.getTime()) / 1000 })),
      counts: {
        total: sweep.todo,
        done: totals.done,
        running: running.length,
        passed: totals.passed,
        errors: totals.errors,
        llmUsd: cost.llm_usd,
        machineS: cost.machine_s,
        elapsedS: (end - sweep.started_at.getTime()) / 1000,
      },
    };
  });
}
