/**
 * The two network backends, made through the factory and pointed at a fake server, with what a test
 * needs to read their requests. Shared by the backend, recorder, replay and CLI tests.
 */
import { OAuth2Client } from 'google-auth-library';
import { makeBackend, parseLlmSpec } from '../../mace/llm/factory.ts';
import type { LlmBackend, LlmTool } from '../../mace/llm/types.ts';
import { gemini, openai, type FakeRequest } from './fake-http.ts';

// google-auth-library must never look for a GCE metadata server in a test.
process.env.METADATA_SERVER_DETECTION = 'none';

export const FAST_RETRY = { retries: 2, base_delay_s: 0.001, max_delay_s: 0.002 };
export const VERTEX_TOKEN = 'ya29.fake-access-token-0123456789';
export const OPENAI_KEY = 'sk-test-fake-key-0123456789abcdef';

export interface Kit {
  readonly name: 'vertex' | 'openai';
  readonly api: typeof gemini | typeof openai;
  readonly model: string;
  /** The credential the backend sends, which must never appear in an error. */
  readonly secret: string;
  make(url: string, spec?: object): Promise<LlmBackend>;
  /** The tool results a request sends back to the model. */
  toolResults(request: FakeRequest): string[];
  /** Whether a request asks the model for text with tool calling turned off. */
  forcesText(request: FakeRequest): boolean;
  seedOf(request: FakeRequest): unknown;
}

function fakeAuthClient(): OAuth2Client {
  const client = new OAuth2Client();
  client.setCredentials({ access_token: VERTEX_TOKEN, expiry_date: Date.now() + 3_600_000 });
  return client;
}

export const vertexKit: Kit = {
  name: 'vertex',
  api: gemini,
  model: 'gemini-2.5-flash',
  secret: VERTEX_TOKEN,
  make: (url, spec = {}) =>
    makeBackend(parseLlmSpec({ backend: 'vertex', base_url: url, retry: FAST_RETRY, ...spec }), {
      env: { GOOGLE_CLOUD_PROJECT: 'test-proj', GOOGLE_CLOUD_LOCATION: 'us-central1' },
      vertexAuthClient: fakeAuthClient(),
    }),
  toolResults: (request) =>
    request.body.contents
      .flatMap((c: any) => c.parts)
      .filter((p: any) => p.functionResponse)
      .map((p: any) => p.functionResponse.response.result),
  forcesText: (request) => request.body.toolConfig?.functionCallingConfig?.mode === 'NONE',
  seedOf: (request) => request.body.generationConfig?.seed,
};

export const openaiKit: Kit = {
  name: 'openai',
  api: openai,
  model: 'gpt-4o-mini',
  secret: OPENAI_KEY,
  make: (url, spec = {}) =>
    makeBackend(
      parseLlmSpec({ backend: 'openai', model: 'gpt-4o-mini', base_url: `${url}/v1`, retry: FAST_RETRY, ...spec }),
      { env: { OPENAI_API_KEY: OPENAI_KEY } },
    ),
  toolResults: (request) => request.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content),
  forcesText: (request) => request.body.tool_choice === 'none',
  seedOf: (request) => request.body.seed,
};

/** A read-only tool that remembers what it was asked. */
export function readLogTool(): LlmTool & { asked: unknown[] } {
  const asked: unknown[] = [];
  return {
    name: 'read_log',
    description: 'Read a log file of the failed task',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    asked,
    async execute(args) {
      asked.push(args);
      return `contents of ${String(args.path)}: %Error: l15.v:12: syntax error`;
    },
  };
}
