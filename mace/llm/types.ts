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

export interface ParsedReplayTag {
  readonly runId: string;
  readonly iteration: number | null;
  readonly taskId: string | null;
  readonly phase: LlmPhase;
  readonly attempt: number | undefined;
}

/**
 * The inverse of replayTag, for a tag typed by a user (`mace llm ping --tag`) or read from a
 * database. Task ids may hold `/`, so the run id is the first segment and the phase the last.
 * Returns undefined for anything replayTag could not have written.
 */
export function parseReplayTag(tag: string): ParsedReplayTag | undefined {
  const parts = tag.split('/');
  if (parts.length < 4) return undefined;
  const runId = parts[0]!;
  const iterPart = parts[1]!;
  const phasePart = parts[parts.length - 1]!;
  const task = parts.slice(2, -1).join('/');
  const iter = /^iter(\d+)$/.exec(iterPart);
  if (!runId || !task || (iterPart !== 'run' && !iter)) return undefined;
  const [phase, attemptText] = phasePart.split(':');
  if (!(LLM_PHASES as readonly string[]).includes(phase!)) return undefined;
  if (attemptText !== undefined && !/^\d+$/.test(attemptText)) return undefined;
  return {
    runId,
    iteration: iter ? Number(iter[1]) : null,
    taskId: task === '-' ? null : task,
    phase: phase as LlmPhase,
    attempt: attemptText === undefined ? undefined : Number(attemptText),
  };
}

/** A run seed as the 31-bit sampling seed APIs accept (Vertex takes an int32, llama.cpp a uint32). */
export function samplingSeed(seed: number): number {
  return Math.abs(Math.trunc(seed)) % 2 ** 31;
}
