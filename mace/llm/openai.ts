/**
 * Any OpenAI-compatible chat-completions server: llama.cpp's server, vLLM, Ollama, OpenAI itself.
 * This is how a lab without a cloud account runs MACE on a local model.
 *
 * A small typed fetch client rather than the `openai` package: its current major needs Node 22, and
 * the loop uses one endpoint, whose answer is parsed here with zod (local servers leave out fields
 * OpenAI sends, which a lenient schema absorbs), with retries and error text under our own policy.
 *
 * Reasoning models report their thinking inside completion_tokens, with the count in
 * completion_tokens_details.reasoning_tokens; it is split out as thinking tokens (billed as output
 * either way). The chat API has no thinking-token cap, so request.thinkingBudget is ignored, as the
 * planner seed allows for a backend that cannot cap thinking.
 */
import { z } from 'zod';
import { formatIssues } from '../openpiton/issues.ts';
import { networkCall, type NetworkBackendOptions } from './network.ts';
import { HttpStatusError } from './retry.ts';
import type { RequestedCall, Turn } from './tools.ts';
import { samplingSeed, type LlmBackend, type LlmReply, type LlmRequest } from './types.ts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiOptions extends NetworkBackendOptions {
  /** The server's API root, ending in /v1 (OPENAI_BASE_URL). */
  readonly baseUrl: string;
  /** Sent as a bearer token when given (OPENAI_API_KEY); local servers usually need none. */
  readonly apiKey?: string;
}

const ToolCallSchema = z.object({
  id: z.string(),
  function: z.object({
    name: z.string(),
    // OpenAI sends a JSON string; some local servers send the object itself.
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
  }),
});

const ChatCompletionSchema = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(ToolCallSchema).nullish(),
        }),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.number().default(0),
      completion_tokens: z.number().default(0),
      completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
});
type ChatCompletion = z.infer<typeof ChatCompletionSchema>;
type ToolCall = z.infer<typeof ToolCallSchema>;

type Message =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

interface ChatTurn extends Turn {
  readonly message: Message;
}

/**
 * @example
 * const llm = openAiBackend({ baseUrl: 'http://127.0.0.1:8080/v1', model: 'qwen2.5-coder:7b',
 *   price: { input: 0, output: 0 }, retry: retryPolicy(), timeoutMs: 300_000, maxToolRounds: 8 });
 */
export function openAiBackend(options: OpenAiOptions): LlmBackend {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;

  async function post(body: object, signal: AbortSignal): Promise<ChatCompletion> {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal,
    });
    const text = await response.text();
    if (!response.ok)
      throw new HttpStatusError(response.status, text || response.statusText, response.headers.get('retry-after'));
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`the server's answer is not JSON: ${text.slice(0, 200)}`);
    }
    const parsed = ChatCompletionSchema.safeParse(json);
    if (!parsed.success)
      throw new Error(
        `the server's answer is not a chat completion: ${formatIssues(parsed.error).replace(/\n/g, '; ')}`,
      );
    return parsed.data;
  }

  function call(request: LlmRequest): Promise<LlmReply> {
    const toolSpecs = (request.tools ?? []).map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    const messages: Message[] = [{ role: 'user', content: request.prompt }];
    return networkCall<ChatTurn>(request, options, {
      backend: 'openai',
      secrets: [options.apiKey],
      send: async (toolsAllowed, signal) =>
        readTurn(
          await post(
            {
              model: options.model,
              messages,
              ...(request.seed !== undefined ? { seed: samplingSeed(request.seed) } : {}),
              ...(toolSpecs.length ? { tools: toolSpecs, tool_choice: toolsAllowed ? 'auto' : 'none' } : {}),
            },
            signal,
          ),
        ),
      answer(turn, answered) {
        messages.push(
          turn.message,
          ...answered.map((a): Message => ({ role: 'tool', tool_call_id: a.id ?? '', content: a.result })),
        );
      },
    });
  }

  return { name: 'openai', model: options.model, takesTools: true, call };
}

function readTurn(completion: ChatCompletion): ChatTurn {
  const message = completion.choices[0]!.message;
  const toolCalls = message.tool_calls ?? [];
  const calls: RequestedCall[] = toolCalls.map((c) => ({ id: c.id, name: c.function.name, args: toolArgs(c) }));
  const completionTokens = completion.usage?.completion_tokens ?? 0;
  const reasoning = Math.min(completionTokens, completion.usage?.completion_tokens_details?.reasoning_tokens ?? 0);
  return {
    text: message.content ?? '',
    model: completion.model,
    calls,
    message: {
      role: 'assistant',
      content: message.content ?? null,
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    },
    usage: {
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completionTokens - reasoning,
      thinkingTokens: reasoning,
    },
  };
}

/** The arguments object, or the raw text when it is not a JSON object (the tool loop answers with an error). */
function toolArgs(call: ToolCall): Readonly<Record<string, unknown>> | string {
  const raw = call.function.arguments;
  if (typeof raw !== 'string') return raw;
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : raw;
  } catch {
    return raw;
  }
}
