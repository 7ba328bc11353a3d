/**
 * Recording for the methods that do not go through runMaceLoop (expert, fault checks, retry_agent):
 * the run row with the same labels and provenance the loop writes, the same requirement checks the
 * loop makes first, and one place that turns an escaped error or a cancel into an `error` run.
 */
import { existsSync } from 'node:fs';
import type { RunLlm } from '../../mace/llm/recorder.ts';
import { coreSupportProblem } from '../../mace/openpiton/source-index.ts';
import { verifyChecksums } from '../../mace/openpiton/workloads.ts';
import { checkoutProvenance, projectProvenance } from '../../mace/provenance.ts';
import { addRunMeta, finishRun, startRun } from '../../mace/store/writers.ts';
import type { MethodContext, MethodOutcome } from './types.ts';

/** Record the run as `running`, with its labels and the provenance of the project and its checkouts. */
export async function startOwnRun(ctx: MethodContext, llm: RunLlm | undefined): Promise<void> {
  const { spec } = ctx.task;
  const { labels } = ctx;
  await startRun(ctx.store, {
    runId: ctx.runId,
    objective: spec.objective,
    core: spec.core,
    mesh: spec.target_mesh,
    workloads: spec.workloads,
    method: labels.method,
    task: labels.task ?? null,
    repeat: labels.repeat ?? null,
    seed: labels.seed ?? null,
    spec,
    backend: llm?.backend.name ?? null,
    model: llm?.backend.model ?? null,
    suiteHash: labels.suiteHash ?? null,
    jobKey: labels.jobKey ?? null,
    fault: labels.fault ?? null,
    meta: { ...projectProvenance(), ...(labels.meta ?? {}) },
  });
  await addRunMeta(ctx.store, ctx.runId, { checkouts: await checkoutProvenance(ctx.checkouts) });
}

type Ended = Omit<MethodOutcome, 'runId'>;

/** What the loop checks before anything else: the gate programs' checksums, then that each checkout can build the core. */
export async function requirementProblem(ctx: MethodContext): Promise<Ended | undefined> {
  const problems = await verifyChecksums(ctx.workloadsDir);
  if (problems.length)
    return { status: 'checksum_mismatch', reason: `gate workloads do not match CHECKSUMS: ${problems.join('; ')}` };
  for (const checkout of ctx.checkouts) {
    const problem = existsSync(checkout.root) ? coreSupportProblem(checkout.root, ctx.task.spec.core) : undefined;
    if (problem)
      return {
        status: 'unsupported_core',
        reason: `checkout ${checkout.root} cannot build core ${ctx.task.spec.core}: ${problem}`,
      };
  }
  return undefined;
}

/** Run the method's body and record how the run ended; an escaped error or a cancel ends it as `error`. */
export async function finishOwnRun(ctx: MethodContext, body: () => Promise<Ended>): Promise<MethodOutcome> {
  let ended: Ended;
  try {
    ended = await body();
    if (ctx.signal.aborted) ended = { status: 'error', reason: 'cancelled' };
  } catch (error) {
    ended = {
      status: 'error',
      reason: ctx.signal.aborted
        ? 'cancelled'
        : error instanceof Error
          ? `${error.name}: ${error.message}`
          : String(error),
    };
  }
  await finishRun(ctx.store, ctx.runId, ended.status, ended.reason ? { error: ended.reason } : {});
  return { runId: ctx.runId, ...ended };
}
