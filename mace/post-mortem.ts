/**
 * The post-mortem: one more LLM call for a run that ends failed or budget_exceeded after at least
 * one iteration. It judges whether a configuration fix remains or the target is out of reach. Its
 * cost counts toward the run's dollars, but it never changes the run's status.
 */
import { parsePostMortem, type PostMortemReply } from './directives.ts';
import { runVerdict } from './evidence.ts';
import type { IterationOutcome } from './orchestrator.ts';
import type { LlmTool } from './llm/types.ts';
import type { RunLlm } from './llm/recorder.ts';
import type { MaceSpec } from './spec.ts';

export function buildPostMortemPrompt(spec: MaceSpec, status: string, iterations: readonly IterationOutcome[]): string {
  const tried = iterations.flatMap((it) =>
    it.results.map((r) => {
      const line = `Iteration ${it.iteration}, task ${r.task.id} (${r.task.kind}): ${r.task.instruction} -> build_success=${r.build.success}, verdict=${runVerdict(r)}`;
      const failure = it.failure?.taskId === r.task.id ? it.failure : undefined;
      return failure
        ? `${line}\n  diagnosis: ${failure.diagnosis.diagnosis} (suggested fix: ${failure.diagnosis.fix || 'none'})`
        : line;
    }),
  );
  return [
    'A MACE loop run ended without a passing design. Weigh everything that was tried and give one clear judgement.',
    `Objective: ${spec.objective.trim()}\nCore: ${spec.core}. Target mesh: ${spec.target_mesh[0]}x${spec.target_mesh[1]}.\nWhy the loop stopped: ${status}`,
    `What was tried, in order:\n${tried.length ? tried.join('\n') : '(no task ever ran)'}`,
    'Is there a configuration change left that would make the gate workloads pass, or is this a limitation of the hardware, the RTL or the simulator? ' +
      'Use the log-inspection tools where they are offered to check the evidence rather than guess.',
    [
      'End your reply with exactly these three lines:',
      'ASSESSMENT: <fixable_config|likely_hardware_limitation|inconclusive>',
      'EXPLANATION: <the specific evidence that led to this assessment>',
      'NEXT_STEPS: <what to try next, or why nothing more is worth trying>',
    ].join('\n'),
  ].join('\n\n');
}

/** One call; undefined when the reply has no ASSESSMENT (the post-mortem is then dropped). */
export async function postMortem(
  spec: MaceSpec,
  status: string,
  iterations: readonly IterationOutcome[],
  llm: RunLlm,
  call: { readonly tools?: readonly LlmTool[]; readonly signal?: AbortSignal } = {},
): Promise<PostMortemReply | undefined> {
  const reply = await llm.call({
    phase: 'post_mortem',
    prompt: buildPostMortemPrompt(spec, status, iterations),
    iteration: null,
    tools: call.tools,
    signal: call.signal,
  });
  return parsePostMortem(reply.text);
}
