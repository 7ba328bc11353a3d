/**
 * What the network backends (Vertex, OpenAI-compatible) share: one call is a tool-calling
 * conversation whose every HTTP request runs under the retry policy, and whose turns add up to one
 * reply with its usage, cost and latency. A backend supplies only how to send its wire format and
 * how to answer tool calls in it.
 */
import { usdFor, type Price } from './pricing.ts';
import { withRetries, type RetryPolicy } from './retry.ts';
import { converse, type AnsweredCall, type Turn } from './tools.ts';
import type { BackendName, LlmReply, LlmRequest } from './types.ts';

export interface NetworkBackendOptions {
  readonly model: string;
  readonly price: Price;
  readonly retry: RetryPolicy;
  /** How long one HTTP request may take. */
  readonly timeoutMs: number;
  /** Rounds of tool calls before the model is asked for text with tools turned off. */
  readonly maxToolRounds: number;
}

export interface Exchange<T extends Turn> {
  readonly backend: BackendName;
  /** Values to cut out of any error text (the API key the backend holds). */
  readonly secrets: readonly (string | undefined)[];
  /** Send the conversation so far as one HTTP request; `toolsAllowed` false asks for text. */
  send(toolsAllowed: boolean, signal: AbortSignal): Promise<T>;
  /** Append the model's turn and the tool results to the conversation. */
  answer(turn: T, answered: readonly AnsweredCall[]): void;
}

export async function networkCall<T extends Turn>(
  request: LlmRequest,
  options: NetworkBackendOptions,
  exchange: Exchange<T>,
): Promise<LlmReply> {
  const started = performance.now();
  const ctx = {
    backend: exchange.backend,
    phase: request.phase,
    policy: options.retry,
    signal: request.signal,
    timeoutMs: options.timeoutMs,
    secrets: exchange.secrets,
  };
  const { last, usage, toolCalls } = await converse<T>({
    tools: request.tools ?? [],
    maxRounds: options.maxToolRounds,
    send: (toolsAllowed) => withRetries((signal) => exchange.send(toolsAllowed, signal), ctx),
    answer: (turn, answered) => exchange.answer(turn, answered),
  });
  return {
    text: last.text,
    model: last.model ?? options.model,
    usage,
    usd: usdFor(options.price, usage),
    latencyS: (performance.now() - started) / 1000,
    toolCalls,
  };
}
