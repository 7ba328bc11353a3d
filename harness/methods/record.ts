/**
 * Recording for the methods that do not go through runMaceLoop (expert, fault checks, retry_agent):
 * the run row with the same labels and provenance the loop writes, the same requirement checks the
 * loop makes first, and one place that turns an escaped error or a cancel into an `error` run.
 */
import type { RunLlm } from '../../mace/llm/recorder.ts';
import { checkoutProvenance } from '../../mace/provenance.ts';
import { recordRunStart, requirementProblem as runRequirementProblem } from '../../mace/run-start.ts';
import { addRunMeta, finishRun } from '../../mace/store/writers.ts';
import type { MethodContext, MethodOutcome } from './types.ts';

/** Record the run as `running`, with its labels and the provenance of the project and its checkouts. */
export async function startOwnRun(ctx: MethodContext, llm: RunLlm | undefined): Promise<void> {
  await recordRunStart(ctx.store, {
    runId: ctx.runId,
    spec: ctx.task.spec,
    labels: ctx.labels,
    backend: llm?.backend.name ?? null,
    model: llm?.backend.model ?? null,
  });
  await addRunMeta(ctx.store, ctx.runId, { checkouts: await checkoutProvenance(ctx.checkouts) });
}

type Ended = Omit<MethodOutcome, 'runId'>;

/** What the loop checks before anything else, so a method that is not the loop ends the same way. */
export function requirementProblem(ctx: MethodContext): Promise<Ended | undefined> {
  return runRequirementProblem(ctx.task.spec, ctx.workloadsDir, ctx.checkouts);
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
