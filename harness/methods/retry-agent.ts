/**
 * retry_agent (B2): an agent without MACE's machinery. Each attempt, one LLM call names one design
 * (stated with the planner's own inputs and override rules, so the comparison is fair), which is
 * built and checked on one checkout; after a failure the next attempt gets the raw evidence of the
 * build and simulation, oldest first. No plan check, no narrowing, no triage, no fast path. It has
 * `max_iterations` attempts within the wall-clock and dollar budgets.
 */
import { Deadline } from '../../mace/budget.ts';
import { recordingCheckout } from '../../mace/checkouts.ts';
import { rawNote } from '../../mace/feedback.ts';
import { executeTask, type ExecutionContext } from '../../mace/integrator.ts';
import {
  PlanningError,
  PROMPT_HEADINGS,
  overrideRules,
  planFromReply,
  renderInputs,
  taskRules,
} from '../../mace/planner.ts';
import { taskRecord } from '../../mace/records.ts';
import { LoopOptionsSchema, type MaceSpec, type Task } from '../../mace/spec.ts';
import { markAllRecovered, recordFailure, recordIteration } from '../../mace/store/writers.ts';
import { finishOwnRun, requirementProblem, startOwnRun } from './record.ts';
import { isBringup, type Method, type MethodContext, type MethodOutcome } from './types.ts';

export function retryPrompt(spec: MaceSpec, history: readonly string[], rtlEdits: boolean): string {
  const attempts = spec.budget.max_iterations;
  const parts = [
    `You are bringing up OpenPiton with the ${spec.core} core. You have ${attempts} attempt${attempts === 1 ? '' : 's'}; ` +
      'each attempt builds one design and simulates every gate workload on it.',
    renderInputs(spec),
    taskRules(rtlEdits),
    'Only one design is built per attempt: the task named design if there is one, otherwise the first config, workload or rtl task of your reply.',
    overrideRules(),
  ];
  if (history.length) parts.push(`${PROMPT_HEADINGS.feedback}\n${history.join('\n\n')}`);
  return parts.join('\n\n');
}

/** The design a reply names: its task `design`, else its first task that builds something. */
export function pickDesign(tasks: readonly Task[]): Task | undefined {
  return tasks.find((t) => t.id === 'design') ?? tasks.find((t) => t.kind !== 'unit_test');
}

async function runRetryAgent(ctx: MethodContext): Promise<MethodOutcome> {
  const llm = ctx.llm!(ctx.runId);
  await startOwnRun(ctx, llm);
  return finishOwnRun(ctx, async () => {
    const problem = await requirementProblem(ctx);
    if (problem) return problem;
    const { spec } = ctx.task;
    const options = LoopOptionsSchema.parse(ctx.options);
    const deadline = Deadline.after(spec.budget.max_wall_s);
    const checkout = recordingCheckout(ctx.checkouts[0]!, ctx.store, ctx.runId);
    const history: string[] = [];
    for (let attempt = 0; attempt < spec.budget.max_iterations; attempt++) {
      if (ctx.signal.aborted) throw new Error('cancelled');
      if (deadline.passed())
        return { status: 'budget_exceeded', reason: `the wall-clock budget ran out before attempt ${attempt + 1}` };
      if (llm.totals().usd >= spec.budget.max_usd)
        return { status: 'budget_exceeded', reason: `the LLM budget was spent before attempt ${attempt + 1}` };

      const startedAt = new Date();
      const reply = await llm.call({
        phase: 'agent',
        prompt: retryPrompt(spec, history, options.rtl_edits),
        iteration: attempt,
        signal: ctx.signal,
      });
      let design: Task | undefined;
      try {
        design = pickDesign(planFromReply(reply.text).tasks);
      } catch (error) {
        if (!(error instanceof PlanningError)) throw error;
      }
      const execution: ExecutionContext = {
        spec,
        options,
        taskPrompts: false,
        runId: ctx.runId,
        iteration: attempt,
        llm,
        deadline,
        workloadsDir: ctx.workloadsDir,
        signal: ctx.signal,
      };
      const result = design ? await executeTask(design, checkout, execution) : undefined;
      const finishedAt = new Date();
      await recordIteration(ctx.store, {
        runId: ctx.runId,
        iteration: attempt,
        tasks: result ? [taskRecord(result)] : [],
        wallS: (finishedAt.getTime() - startedAt.getTime()) / 1000,
        usd: llm.totals(attempt).usd,
        startedAt,
        finishedAt,
        plan: design ? [design] : [],
        feedback: history.join('\n\n'),
      });
      if (!result) {
        history.push(`Attempt ${attempt + 1} named no design: the reply had no well-formed TASK: line.`);
        continue;
      }
      if (result.passed) {
        await markAllRecovered(ctx.store, ctx.runId);
        return { status: 'passed' };
      }
      const note = `Attempt ${attempt + 1} failed:\n${rawNote(result)}`;
      history.push(note);
      await recordFailure(ctx.store, {
        runId: ctx.runId,
        iteration: attempt,
        taskId: result.task.id,
        diagnosis: 'raw_evidence',
        fix: '',
        stage: 'raw_evidence',
        feedback: note,
      });
    }
    return { status: 'budget_exceeded', reason: `all ${spec.budget.max_iterations} attempt(s) ended without a pass` };
  });
}

export const retryAgent: Method = {
  name: 'retry_agent',
  summary: 'B2: one LLM-named design per attempt on one checkout, with the raw evidence of each failure',
  checkouts: 'one',
  usesLlm: true,
  loop: false,
  // Only rtl_edits changes what it does (rtl designs with an edit tool); a study may turn it on.
  takesOptions: true,
  once: false,
  options: {},
  applies: isBringup,
  run: runRetryAgent,
};
