/**
 * How the network backends (Vertex, OpenAI-compatible) turn transport trouble into the loop's one
 * failure type. Rate limits (429) and server errors (5xx) are retried with bounded exponential
 * backoff and jitter, or after the delay the server asks for (an HTTP Retry-After header, or the
 * retryDelay of Google's RetryInfo), capped at the longest delay; anything else that leaves the call without a reply (connection refused, DNS,
 * bad credentials, a timeout, the caller's abort) fails at once. Either way the caller gets an
 * LLMCallFailed whose message says what happened, with credentials redacted.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { nonNegativeInt, positiveNumber, strictObject } from '../spec.ts';
import { redact } from './redact.ts';
import { LLMCallFailed, type LlmPhase } from './types.ts';

export const RetrySpecSchema = strictObject({
  retries: nonNegativeInt('retries').default(4).describe('Retries after a 429 or 5xx answer before the call fails'),
  base_delay_s: positiveNumber('base_delay_s').default(1).describe('Delay before the first retry'),
  max_delay_s: positiveNumber('max_delay_s').default(30).describe('Longest delay between retries'),
}).describe('Backoff for rate limits and server errors');
export type RetrySpec = z.output<typeof RetrySpecSchema>;

export interface RetryPolicy {
  readonly retries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export function retryPolicy(spec: RetrySpec = RetrySpecSchema.parse({})): RetryPolicy {
  return { retries: spec.retries, baseDelayMs: spec.base_delay_s * 1000, maxDelayMs: spec.max_delay_s * 1000 };
}

/**
 * The wait before retry number `retry` (from 0): the ceiling doubles from the base delay up to the
 * maximum, and the wait is drawn from its upper half, so runs that hit one rate limit together
 * spread out but none retries at once.
 */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return ceiling / 2 + (random() * ceiling) / 2;
}

/** An HTTP answer that is not a success, from a client that does not throw its own typed error. */
export class HttpStatusError extends Error {
  override name = 'HttpStatusError';
  constructor(
    readonly status: number,
    message: string,
    /** The answer's Retry-After header, if it had one. */
    readonly retryAfter?: string | null,
  ) {
    super(message);
  }
}

/**
 * The wait the server asked for, in ms: a Retry-After header (seconds, or an HTTP date), else the
 * `retryDelay` ("12.5s") of a Google RetryInfo detail in the error body; undefined when it asked none.
 */
export function requestedDelayMs(error: unknown, now = Date.now()): number | undefined {
  const header = error instanceof HttpStatusError ? error.retryAfter?.trim() : undefined;
  if (header) {
    if (/^\d+(\.\d+)?$/.test(header)) return Number(header) * 1000;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const message = error instanceof Error ? error.message : '';
  const delay = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(message);
  return delay ? Number(delay[1]) * 1000 : undefined;
}

export interface CallContext {
  readonly backend: string;
  readonly phase: LlmPhase;
  readonly policy: RetryPolicy;
  /** The caller's signal: once it aborts, the request stops and nothing is retried. */
  readonly signal?: AbortSignal;
  /** How long one HTTP attempt may take before it is given up (not retried). */
  readonly timeoutMs: number;
  /** Values to cut out of any error text (API keys the backend holds). */
  readonly secrets: readonly (string | undefined)[];
}

/** 429 and 5xx: the server answered but could not serve the call now. */
function isRetryableStatus(status: number | undefined): boolean {
  return status !== undefined && (status === 429 || status >= 500);
}

/**
 * Run one request, retrying rate limits and server errors, and turn every failure into an
 * LLMCallFailed. Each attempt gets its own signal, aborted by the caller's signal or by the
 * attempt's timeout. A conversation with tool rounds wraps each request on its own, so a retry never
 * runs a tool twice.
 */
export async function withRetries<T>(send: (signal: AbortSignal) => Promise<T>, ctx: CallContext): Promise<T> {
  for (let retry = 0; ; retry++) {
    const timeout = AbortSignal.timeout(ctx.timeoutMs);
    try {
      return await send(ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout);
    } catch (error) {
      const status = statusOf(error);
      const retryable = isRetryableStatus(status) && !ctx.signal?.aborted;
      if (!retryable || retry >= ctx.policy.retries) {
        const after = retryable ? ` (gave up after ${retry + 1} attempts)` : '';
        // Clients report a timeout as a plain abort, so the attempt's own timer says which it was.
        const reason = timeout.aborted ? `no reply within ${ctx.timeoutMs / 1000} s` : reasonOf(error, ctx);
        throw failure(ctx, `${reason}${after}`);
      }
      try {
        const requested = requestedDelayMs(error);
        const wait =
          requested === undefined ? backoffMs(retry, ctx.policy) : Math.min(requested, ctx.policy.maxDelayMs);
        await sleep(wait, undefined, { signal: ctx.signal });
      } catch {
        throw failure(ctx, 'aborted by the caller while waiting to retry');
      }
    }
  }
}

function failure(ctx: CallContext, reason: string): LLMCallFailed {
  return new LLMCallFailed(redact(`${ctx.backend} ${ctx.phase} call failed: ${reason}`, ctx.secrets), ctx.phase);
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

const MAX_REASON = 400;

/** One line on what went wrong, without stack or request details. */
function reasonOf(error: unknown, ctx: CallContext): string {
  if (ctx.signal?.aborted) return 'aborted by the caller';
  if (!(error instanceof Error)) return String(error).slice(0, MAX_REASON);
  if (error.name === 'AbortError') return 'aborted';
  const status = statusOf(error);
  const message = errorBodyMessage(error.message).replace(/\s+/g, ' ').trim().slice(0, MAX_REASON);
  if (status !== undefined) return `HTTP ${status}: ${message}`;
  // fetch reports network trouble as `TypeError: fetch failed` with the system error as its cause.
  const cause = error.cause;
  if (cause instanceof Error) return `cannot reach the server: ${message} (${cause.message})`;
  return message;
}

/** Both Google and OpenAI-style servers answer errors with `{"error": {"message": ...}}`; keep the message. */
function errorBodyMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    return typeof message === 'string' && message ? message : text;
  } catch {
    return text;
  }
}
