/**
 * The loop's view of the LLM: one run's recorder, which tags, times, prices and records every call.
 * mace/llm provides the implementation; the loop depends only on this shape.
 */
import type { LlmPhase, LlmReply, LlmTool } from './llm/types.ts';

export interface RunCallRequest {
  readonly phase: LlmPhase;
  readonly prompt: string;
  /** null for calls outside an iteration (the post-mortem). */
  readonly iteration: number | null;
  readonly taskId?: string | null;
  /** Retry number for a phase made more than once under one tag (plan retries). */
  readonly attempt?: number;
  readonly tools?: readonly LlmTool[];
  readonly thinkingBudget?: number | null;
  readonly signal?: AbortSignal;
}

export interface RunLlm {
  readonly backend: string;
  readonly model: string;
  /** Throws LLMCallFailed when no reply came at all; the call is recorded either way. */
  call(request: RunCallRequest): Promise<LlmReply>;
  /** Dollars spent by every call of the run so far. */
  totalUsd(): number;
}
