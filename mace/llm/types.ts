/**
 * The one LLM interface every call of the loop and the harness goes through. Backends (Vertex
 * Gemini, OpenAI-compatible servers, the scripted offline agent, replay) implement LlmBackend; the
 * recorder wraps a backend for one run and writes every call to `llm_calls`.
 */

/** What a call is for; recorded with it and part of its replay tag. */
export const LLM_PHASES = [
  'plan',
  'plan_retry',
  'task',
  'triage',
  'post_mortem',
  'rtl',
  'unit_test',
  'agent',
  'propose',
  'ping',
] as const;
export type LlmPhase = (typeof LLM_PHASES)[number];

/** A read-only tool offered to a backend that takes tools (function calling). */
export interface LlmTool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Readonly<Record<string, unknown>>;
  /** Never throws: errors come back as text starting with `ERROR: `. */
  execute(args: Readonly<Record<string, unknown>>): Promise<string>;
}

export interface LlmRequest {
  readonly phase: LlmPhase;
  readonly prompt: string;
  readonly tools?: readonly LlmTool[];
  /** Most thinking tokens the call may spend; null or undefined leaves it to the model. */
  readonly thinkingBudget?: number | null;
  readonly signal?: AbortSignal;
  /** `<run_id>/iter<N>/<task_id>/<phase>` (see replayTag); replay answers by it. */
  readonly tag?: string;
  /** Sampling seed, where the backend takes one; the scripted agent derives its choices from it. */
  readonly seed?: number;
}

export interface LlmUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Billed as output. */
  readonly thinkingTokens: number;
}

export interface ToolCallRecord {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly result: string;
}

export interface LlmReply {
  readonly text: string;
  readonly model: string;
  readonly usage: LlmUsage;
  readonly usd: number;
  readonly latencyS: number;
  readonly toolCalls: readonly ToolCallRecord[];
}

export const BACKEND_NAMES = ['vertex', 'openai', 'scripted', 'replay'] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];

export interface LlmBackend {
  readonly name: BackendName;
  readonly model: string;
  /** Whether tools are offered to the model; a backend that cannot take them ignores request.tools. */
  readonly takesTools: boolean;
  call(request: LlmRequest): Promise<LlmReply>;
}

/**
 * No reply at all: the network is down, the credentials are bad, or retries of rate limits and
 * server errors ran out. The loop ends the run as `error`, which a batch runs again.
 */
export class LLMCallFailed extends Error {
  override name = 'LLMCallFailed';
  constructor(
    message: string,
    readonly phase: LlmPhase,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The replay tag of a call: `<run_id>/iter<N>/<task_id>/<phase>`. A call outside any iteration uses
 * `run` for the iteration and a call of no task uses `-`; a phase made more than once under one tag
 * (plan retries) carries its attempt, as in `plan_retry:2`.
 */
export function replayTag(runId: string, iteration: number | null, taskId: string | null, phase: string): string {
  return `${runId}/${iteration === null ? 'run' : `iter${iteration}`}/${taskId ?? '-'}/${phase}`;
}
