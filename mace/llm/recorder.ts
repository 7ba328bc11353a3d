/**
 * RunLlm is what the loop calls: one per run, wrapping the run's backend. Each call gets its replay
 * tag and the run's seed, is timed, and is recorded in `llm_calls` (failed calls too, with ok=false
 * and the reason), numbered in the order the calls were made. Records commit with the store's next
 * write (Store.later), so a call costs no commit of its own; `store.flush()` commits them at once. It keeps the run's running totals of
 * tokens and dollars, which `max_usd` budgets read, and rethrows LLMCallFailed for the loop to end
 * the run as `error`.
 */
import type { Store } from '../store/store.ts';
import { recordLlmCall, type LlmCallRecord } from '../store/writers.ts';
import { redact } from './redact.ts';
import { replayTag, type LlmBackend, type LlmPhase, type LlmReply, type LlmTool, type LlmUsage } from './types.ts';

/** One call as the loop makes it. */
export interface LlmCall {
  readonly phase: LlmPhase;
  readonly prompt: string;
  /** The loop iteration, or null (the default) for a call outside any, such as the post-mortem. */
  readonly iteration?: number | null;
  /** The task the call is about (task prompts, triage), or null (the default). */
  readonly taskId?: string | null;
  readonly tools?: readonly LlmTool[];
  /** Thinking-token cap; the loop gives it on planner calls only. */
  readonly thinkingBudget?: number | null;
  readonly signal?: AbortSignal;
  /** For a phase made more than once in one place: plan retry 2 is tagged `plan_retry:2`. */
  readonly attempt?: number;
}

export interface LlmTotals extends LlmUsage {
  readonly calls: number;
  readonly failed: number;
  readonly usd: number;
}

export interface RunLlmOptions {
  readonly runId: string;
  /** The run's seed, handed to every call (sampling seed; the scripted agent's choices). */
  readonly seed?: number;
  /** Where calls are recorded; without one (`mace llm ping`) they are only kept in memory. */
  readonly store?: Store;
}

/**
 * @example
 * const llm = new RunLlm(await makeBackend(spec), { runId, seed, store });
 * const reply = await llm.call({ phase: 'plan', prompt, iteration: 0, thinkingBudget: options.planner_thinking });
 * if (llm.totals().usd > budget.max_usd) ...
 */
export class RunLlm {
  readonly backend: LlmBackend;
  readonly runId: string;
  private readonly seed: number | undefined;
  private readonly store: Store | undefined;
  /** Indexed by seq; a slot stays empty while its call is in flight. */
  private readonly records: LlmCallRecord[] = [];
  private nextSeq = 0;

  constructor(backend: LlmBackend, options: RunLlmOptions) {
    this.backend = backend;
    this.runId = options.runId;
    this.seed = options.seed;
    this.store = options.store;
  }

  /** Make one call, record it, and return the reply; a failed call is recorded and rethrown. */
  async call(input: LlmCall): Promise<LlmReply> {
    const seq = this.nextSeq++;
    const iteration = input.iteration ?? null;
    const taskId = input.taskId ?? null;
    const tag = replayTag(
      this.runId,
      iteration,
      taskId,
      input.attempt === undefined ? input.phase : `${input.phase}:${input.attempt}`,
    );
    const startedAt = new Date();
    const started = performance.now();
    const base = {
      runId: this.runId,
      seq,
      iteration,
      phase: input.phase,
      taskId,
      replayTag: tag,
      backend: this.backend.name,
      prompt: input.prompt,
      startedAt,
    };
    let reply: LlmReply;
    try {
      reply = await this.backend.call({
        phase: input.phase,
        prompt: input.prompt,
        tools: input.tools,
        thinkingBudget: input.thinkingBudget,
        signal: input.signal,
        tag,
        seed: this.seed,
      });
    } catch (error) {
      await this.keep({
        ...base,
        model: this.backend.model,
        inputTokens: 0,
        outputTokens: 0,
        thinkingTokens: 0,
        usd: 0,
        wallS: (performance.now() - started) / 1000,
        ok: false,
        reply: null,
        error: redact(error instanceof Error ? `${error.name}: ${error.message}` : String(error)),
      });
      throw error;
    }
    await this.keep({
      ...base,
      model: reply.model,
      inputTokens: reply.usage.inputTokens,
      outputTokens: reply.usage.outputTokens,
      thinkingTokens: reply.usage.thinkingTokens,
      usd: reply.usd,
      wallS: (performance.now() - started) / 1000,
      ok: true,
      reply: reply.text,
      toolCalls: reply.toolCalls,
    });
    return reply;
  }

  /** Every finished call so far, in seq order, as recorded. */
  calls(): readonly LlmCallRecord[] {
    return this.records.filter(Boolean);
  }

  /** Tokens, dollars and call counts of the finished calls: the run's, or one iteration's. */
  totals(iteration?: number | null): LlmTotals {
    const calls = this.calls().filter((c) => iteration === undefined || c.iteration === iteration);
    const sum = (key: 'inputTokens' | 'outputTokens' | 'thinkingTokens' | 'usd') =>
      calls.reduce((total, c) => total + c[key], 0);
    return {
      calls: calls.length,
      failed: calls.filter((c) => !c.ok).length,
      inputTokens: sum('inputTokens'),
      outputTokens: sum('outputTokens'),
      thinkingTokens: sum('thinkingTokens'),
      usd: sum('usd'),
    };
  }

  private async keep(record: LlmCallRecord): Promise<void> {
    this.records[record.seq] = record;
    // Calls share the commit of the step that follows them (the run's next write).
    if (this.store) await recordLlmCall(this.store, record, 'later');
  }
}
