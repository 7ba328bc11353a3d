/**
 * Gemini on Vertex AI through @google/genai (2.x: 3.x needs Node 22) with `vertexai: true`.
 * Authentication is Application Default Credentials for a project and location, or Vertex express
 * mode with an API key; tests inject an auth client and point the base URL at a local fake server.
 * The SDK's own retries are left off: withRetries() is the one retry policy of every backend.
 */
import {
  FunctionCallingConfigMode,
  GoogleGenAI,
  type Content,
  type GenerateContentConfig,
  type GenerateContentResponse,
  type GoogleGenAIOptions,
} from '@google/genai';
import { InputError } from '../errors.ts';
import { networkCall, type NetworkBackendOptions } from './network.ts';
import type { RequestedCall, Turn } from './tools.ts';
import { samplingSeed, type LlmBackend, type LlmReply, type LlmRequest } from './types.ts';

type AuthClient = NonNullable<NonNullable<GoogleGenAIOptions['googleAuthOptions']>['authClient']>;

export interface VertexOptions extends NetworkBackendOptions {
  /** Google Cloud project (GOOGLE_CLOUD_PROJECT); with it, Application Default Credentials authenticate. */
  readonly project?: string;
  /** Vertex region (GOOGLE_CLOUD_LOCATION); `global` when not given. */
  readonly location?: string;
  /** Vertex express mode: an API key instead of a project and ADC. */
  readonly apiKey?: string;
  /** Another endpoint than Google's (a proxy, or a fake server in tests). */
  readonly baseUrl?: string;
  /** An auth client to use instead of ADC (tests hand in one holding a fake token). */
  readonly authClient?: AuthClient;
}

interface VertexTurn extends Turn {
  readonly content: Content;
}

/**
 * @example
 * const llm = vertexBackend({ model: 'gemini-2.5-flash', price: priceOf('gemini-2.5-flash'),
 *   project: process.env.GOOGLE_CLOUD_PROJECT, retry: retryPolicy(), timeoutMs: 300_000, maxToolRounds: 8 });
 */
export function vertexBackend(options: VertexOptions): LlmBackend {
  if (!options.project && !options.apiKey)
    throw new InputError(
      'the vertex backend needs a Google Cloud project: set GOOGLE_CLOUD_PROJECT (and GOOGLE_CLOUD_LOCATION, ' +
        'default global) and log in with `gcloud auth application-default login`, or set GOOGLE_API_KEY for ' +
        'Vertex express mode',
    );
  const ai = new GoogleGenAI({
    vertexai: true,
    ...(options.project ? { project: options.project, location: options.location ?? 'global' } : {}),
    ...(options.project ? {} : { apiKey: options.apiKey }),
    ...(options.authClient ? { googleAuthOptions: { authClient: options.authClient } } : {}),
    ...(options.baseUrl ? { httpOptions: { baseUrl: options.baseUrl } } : {}),
  });

  function call(request: LlmRequest): Promise<LlmReply> {
    const declarations = (request.tools ?? []).map((t) => ({
      name: t.name,
      description: t.description,
      parametersJsonSchema: t.parameters,
    }));
    const contents: Content[] = [{ role: 'user', parts: [{ text: request.prompt }] }];
    const config = (toolsAllowed: boolean, abortSignal: AbortSignal): GenerateContentConfig => ({
      abortSignal,
      ...(request.seed !== undefined ? { seed: samplingSeed(request.seed) } : {}),
      // Only when asked: the loop caps planner calls and leaves every other call to the model.
      ...(typeof request.thinkingBudget === 'number'
        ? { thinkingConfig: { thinkingBudget: request.thinkingBudget } }
        : {}),
      ...(declarations.length
        ? {
            tools: [{ functionDeclarations: declarations }],
            ...(toolsAllowed
              ? {}
              : { toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.NONE } } }),
          }
        : {}),
    });
    return networkCall<VertexTurn>(request, options, {
      backend: 'vertex',
      secrets: [options.apiKey],
      send: async (toolsAllowed, signal) =>
        readTurn(
          await ai.models.generateContent({ model: options.model, contents, config: config(toolsAllowed, signal) }),
        ),
      answer(turn, answered) {
        contents.push(turn.content, {
          role: 'user',
          parts: answered.map((a) => ({
            functionResponse: { ...(a.id ? { id: a.id } : {}), name: a.name, response: { result: a.result } },
          })),
        });
      },
    });
  }

  return { name: 'vertex', model: options.model, takesTools: true, call };
}

/** The text (thought parts left out), tool calls and usage of one response. */
function readTurn(response: GenerateContentResponse): VertexTurn {
  const content = response.candidates?.[0]?.content ?? { role: 'model', parts: [] };
  const parts = content.parts ?? [];
  const calls: RequestedCall[] = parts.flatMap((p) =>
    p.functionCall
      ? [
          {
            ...(p.functionCall.id ? { id: p.functionCall.id } : {}),
            name: p.functionCall.name ?? '',
            args: p.functionCall.args ?? {},
          },
        ]
      : [],
  );
  const meta = response.usageMetadata;
  return {
    text: parts
      .filter((p) => typeof p.text === 'string' && !p.thought)
      .map((p) => p.text)
      .join(''),
    calls,
    content,
    model: response.modelVersion,
    usage: {
      inputTokens: (meta?.promptTokenCount ?? 0) + (meta?.toolUsePromptTokenCount ?? 0),
      outputTokens: meta?.candidatesTokenCount ?? 0,
      thinkingTokens: meta?.thoughtsTokenCount ?? 0,
    },
  };
}
