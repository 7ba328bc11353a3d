/**
 * Small local HTTP servers that stand in for Vertex AI and OpenAI-compatible servers (the true edge
 * of the LLM backends): the real clients talk real HTTP to 127.0.0.1, with no credentials and no
 * internet. Each server answers from a script and keeps every request it got.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';

export interface FakeRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The JSON body, parsed. */
  readonly body: any;
}

export interface FakeAnswer {
  readonly status?: number;
  readonly body: unknown;
  /** Wait this long before answering (for abort tests). */
  readonly delayMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Answers in order (the last one repeats), or a function of the request and its index. */
export type Script = readonly FakeAnswer[] | ((request: FakeRequest, index: number) => FakeAnswer);

export interface FakeServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly requests: FakeRequest[];
  close(): Promise<void>;
}

/** Start a fake server for this test file; it is closed when the file's tests end. */
export async function fakeServer(script: Script): Promise<FakeServer> {
  const server = await startFakeServer(script);
  after(() => server.close());
  return server;
}

/** Start a fake server that the caller closes (benchmarks). */
export async function startFakeServer(script: Script): Promise<FakeServer> {
  const requests: FakeRequest[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : null,
      };
      const index = requests.push(request) - 1;
      const answer =
        typeof script === 'function' ? script(request, index) : script[Math.min(index, script.length - 1)]!;
      const reply = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.body));
      };
      if (answer.delayMs) setTimeout(reply, answer.delayMs).unref();
      else reply();
    });
  });
  await listen(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => close(server),
  };
}

/** A URL nothing listens on: a server is started, its port noted, and the server closed. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await listen(server);
  const { port } = server.address() as AddressInfo;
  await close(server);
  return `http://127.0.0.1:${port}`;
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

// Response bodies in each API's format.

export interface Tokens {
  readonly input: number;
  readonly output: number;
  readonly thinking?: number;
}

export const gemini = {
  text(text: string, tokens: Tokens, thought?: string): FakeAnswer {
    return {
      body: {
        candidates: [
          {
            content: { role: 'model', parts: [...(thought ? [{ text: thought, thought: true }] : []), { text }] },
            finishReason: 'STOP',
          },
        ],
        usageMetadata: {
          promptTokenCount: tokens.input,
          candidatesTokenCount: tokens.output,
          thoughtsTokenCount: tokens.thinking ?? 0,
          totalTokenCount: tokens.input + tokens.output + (tokens.thinking ?? 0),
        },
        modelVersion: 'gemini-2.5-flash-001',
      },
    };
  },
  toolCall(name: string, args: object, tokens: Tokens): FakeAnswer {
    return {
      body: {
        candidates: [{ content: { role: 'model', parts: [{ functionCall: { name, args } }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: tokens.input, candidatesTokenCount: tokens.output, thoughtsTokenCount: 0 },
        modelVersion: 'gemini-2.5-flash-001',
      },
    };
  },
  error(status: number, message: string): FakeAnswer {
    return { status, body: { error: { code: status, message, status: 'ERROR' } } };
  },
  /** A 429 whose body asks for a wait, as Google's RetryInfo detail does. */
  rateLimited(delayS: number): FakeAnswer {
    const details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${delayS}s` }];
    return {
      status: 429,
      body: { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED', details } },
    };
  },
};

export const openai = {
  text(text: string, tokens: Tokens): FakeAnswer {
    return {
      body: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        model: 'served-model',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: {
          prompt_tokens: tokens.input,
          // As OpenAI reports it: completion tokens include the reasoning tokens.
          completion_tokens: tokens.output + (tokens.thinking ?? 0),
          total_tokens: tokens.input + tokens.output + (tokens.thinking ?? 0),
          ...(tokens.thinking !== undefined
            ? { completion_tokens_details: { reasoning_tokens: tokens.thinking } }
            : {}),
        },
      },
    };
  },
  toolCall(name: string, args: object | string, tokens: Tokens): FakeAnswer {
    return {
      body: {
        model: 'served-model',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `call_${name}`,
                  type: 'function',
                  function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: tokens.input, completion_tokens: tokens.output },
      },
    };
  },
  error(status: number, message: string): FakeAnswer {
    return { status, body: { error: { message, type: 'error', code: null } } };
  },
  /** A 429 with a Retry-After header, in seconds. */
  rateLimited(delayS: number): FakeAnswer {
    return { ...openai.error(429, 'Rate limit reached'), headers: { 'retry-after': String(delayS) } };
  },
};
