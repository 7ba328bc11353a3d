/**
 * The network backends against local fake servers: the real @google/genai client (Vertex) and our
 * OpenAI-compatible client talk real HTTP to 127.0.0.1. The fake servers are the one mock here,
 * standing in for Google and OpenAI. Every behaviour both backends share is checked on both.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeBackend, parseLlmSpec } from '../../mace/llm/factory.ts';
import { priceOf, usdFor } from '../../mace/llm/pricing.ts';
import { RunLlm } from '../../mace/llm/recorder.ts';
import { LLMCallFailed } from '../../mace/llm/types.ts';
import { fakeServer, gemini, openai, refusedUrl } from './fake-http.ts';
import { openaiKit, readLogTool, vertexKit } from './kits.ts';

for (const kit of [vertexKit, openaiKit]) {
  describe(`${kit.name} backend over HTTP`, () => {
    it('parses the text and the usage, thinking included, and prices it', async () => {
      const server = await fakeServer([kit.api.text('pong', { input: 12, output: 3, thinking: 40 }, 'let me think')]);
      const backend = await kit.make(server.url);
      const reply = await backend.call({ phase: 'ping', prompt: 'say pong', seed: 42 });
      assert.equal(reply.text, 'pong');
      assert.deepEqual(reply.usage, { inputTokens: 12, outputTokens: 3, thinkingTokens: 40 });
      const price = priceOf(kit.model);
      assert.equal(reply.usd, (12 * price.input + 43 * price.output) / 1e6);
      assert.ok(reply.usd > 0);
      assert.ok(reply.model.length > 0);
      assert.deepEqual(reply.toolCalls, []);
      assert.equal(kit.seedOf(server.requests[0]!), 42);
      assert.match(server.requests[0]!.headers.authorization ?? '', new RegExp(`^Bearer ${kit.secret}$`));
    });

    it('retries a 429 and then answers', async () => {
      const server = await fakeServer([
        kit.api.error(429, 'Resource exhausted'),
        kit.api.text('ok', { input: 1, output: 1 }),
      ]);
      const reply = await (await kit.make(server.url)).call({ phase: 'triage', prompt: 'diagnose' });
      assert.equal(reply.text, 'ok');
      assert.equal(server.requests.length, 2);
    });

    it('waits as long as a 429 asks, up to the longest delay', async () => {
      const server = await fakeServer([kit.api.rateLimited(0.4), kit.api.text('ok', { input: 1, output: 1 })]);
      const backend = await kit.make(server.url, { retry: { retries: 2, base_delay_s: 0.001, max_delay_s: 5 } });
      const started = performance.now();
      assert.equal((await backend.call({ phase: 'triage', prompt: 'diagnose' })).text, 'ok');
      // Without the hint the backoff would wait about a millisecond.
      assert.ok(performance.now() - started >= 390, `retried after ${performance.now() - started} ms`);
      assert.equal(server.requests.length, 2);

      const capped = await fakeServer([kit.api.rateLimited(60), kit.api.text('ok', { input: 1, output: 1 })]);
      const quick = await kit.make(capped.url, { retry: { retries: 2, base_delay_s: 0.001, max_delay_s: 0.05 } });
      const before = performance.now();
      assert.equal((await quick.call({ phase: 'triage', prompt: 'diagnose' })).text, 'ok');
      assert.ok(performance.now() - before < 5_000, 'a 60 s request is capped at max_delay_s');
    });

    it('retries 5xx answers, then fails with LLMCallFailed when the retries run out', async () => {
      const server = await fakeServer([kit.api.error(503, 'The service is currently unavailable')]);
      const backend = await kit.make(server.url);
      await assert.rejects(backend.call({ phase: 'plan', prompt: 'plan' }), (error: unknown) => {
        assert.ok(error instanceof LLMCallFailed);
        assert.equal(error.phase, 'plan');
        assert.match(error.message, /HTTP 503: The service is currently unavailable \(gave up after 3 attempts\)/);
        return true;
      });
      assert.equal(server.requests.length, 3);
    });

    it('fails at once on bad credentials, and the credential is not in the error', async () => {
      // The server echoes what it was sent, as real servers partly do.
      const server = await fakeServer((request) =>
        kit.api.error(401, `invalid credentials: ${request.headers.authorization} (key ${kit.secret})`),
      );
      await assert.rejects((await kit.make(server.url)).call({ phase: 'plan', prompt: 'plan' }), (error: unknown) => {
        assert.ok(error instanceof LLMCallFailed);
        assert.match(error.message, /HTTP 401: invalid credentials: Bearer \[redacted\]/);
        assert.ok(!error.message.includes(kit.secret), error.message);
        assert.ok(!error.message.includes(kit.secret.slice(-10)), error.message);
        return true;
      });
      assert.equal(server.requests.length, 1);
    });

    it('turns a refused connection into LLMCallFailed', async () => {
      const backend = await kit.make(await refusedUrl());
      await assert.rejects(backend.call({ phase: 'plan', prompt: 'plan' }), (error: unknown) => {
        assert.ok(error instanceof LLMCallFailed);
        assert.match(error.message, /cannot reach the server: .*ECONNREFUSED/);
        return true;
      });
    });

    it("turns the caller's abort into LLMCallFailed", async () => {
      const server = await fakeServer([{ ...kit.api.text('late', { input: 1, output: 1 }), delayMs: 10_000 }]);
      const backend = await kit.make(server.url);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      await assert.rejects(
        backend.call({ phase: 'task', prompt: 'x', signal: controller.signal }),
        (error: unknown) => {
          assert.ok(error instanceof LLMCallFailed);
          assert.match(error.message, /aborted by the caller/);
          return true;
        },
      );
    });

    it('gives up on a request that outlasts its timeout, without retrying it', async () => {
      const server = await fakeServer([{ ...kit.api.text('late', { input: 1, output: 1 }), delayMs: 10_000 }]);
      const backend = await kit.make(server.url, { timeout_s: 0.3 });
      await assert.rejects(backend.call({ phase: 'plan', prompt: 'x' }), (error: unknown) => {
        assert.ok(error instanceof LLMCallFailed);
        assert.match(error.message, /no reply within 0\.3 s$/);
        return true;
      });
      // Not retried. (On a loaded machine the timer may even fire before the request is sent.)
      assert.ok(server.requests.length <= 1);
    });

    it('runs the tools the model asks for, answers them, and returns the final text', async () => {
      const server = await fakeServer([
        kit.api.toolCall('read_log', { path: 'build.log' }, { input: 20, output: 5 }),
        kit.api.text('DIAGNOSIS: config_error\nFIX: restore the default L1.5', { input: 60, output: 9 }),
      ]);
      const tool = readLogTool();
      const reply = await (await kit.make(server.url)).call({ phase: 'triage', prompt: 'why?', tools: [tool] });
      assert.equal(reply.text, 'DIAGNOSIS: config_error\nFIX: restore the default L1.5');
      assert.deepEqual(tool.asked, [{ path: 'build.log' }]);
      const result = 'contents of build.log: %Error: l15.v:12: syntax error';
      assert.deepEqual(reply.toolCalls, [{ name: 'read_log', args: { path: 'build.log' }, result }]);
      assert.equal(server.requests.length, 2);
      assert.deepEqual(kit.toolResults(server.requests[0]!), []);
      assert.deepEqual(kit.toolResults(server.requests[1]!), [result]);
      assert.deepEqual(reply.usage, { inputTokens: 80, outputTokens: 14, thinkingTokens: 0 });
    });

    it('asks for text with tools off once the tool rounds are spent', async () => {
      const server = await fakeServer((_, index) =>
        index < 2
          ? kit.api.toolCall('read_log', { path: `log${index}` }, { input: 1, output: 1 })
          : kit.api.text('giving up on tools', { input: 1, output: 1 }),
      );
      const tool = readLogTool();
      const backend = await kit.make(server.url, { max_tool_rounds: 2 });
      const reply = await backend.call({ phase: 'post_mortem', prompt: 'assess', tools: [tool] });
      assert.equal(reply.text, 'giving up on tools');
      assert.equal(tool.asked.length, 2);
      assert.deepEqual(
        server.requests.map((r) => kit.forcesText(r)),
        [false, false, true],
      );
    });

    it('answers an unknown tool with an error text instead of failing', async () => {
      const server = await fakeServer([
        kit.api.toolCall('rm_rf', { path: '/' }, { input: 1, output: 1 }),
        kit.api.text('ok', { input: 1, output: 1 }),
      ]);
      const reply = await (await kit.make(server.url)).call({ phase: 'triage', prompt: 'x', tools: [readLogTool()] });
      assert.equal(reply.text, 'ok');
      assert.deepEqual(kit.toolResults(server.requests[1]!), [
        'ERROR: there is no tool named rm_rf; the tools are read_log',
      ]);
    });
  });
}

describe('vertex backend specifics', () => {
  it('calls the project and location endpoint for the model, with the thinking budget only when one is given', async () => {
    const server = await fakeServer([
      gemini.text('TASK: base | deps= | kind=workload | run', { input: 100, output: 20 }),
    ]);
    const llm = new RunLlm(await vertexKit.make(server.url), { runId: 'r1' });
    await llm.call({ phase: 'plan', prompt: 'plan it', iteration: 0, thinkingBudget: 512 });
    await llm.call({ phase: 'triage', prompt: 'diagnose', iteration: 0, taskId: 'base' });
    await llm.call({ phase: 'plan', prompt: 'plan it', iteration: 1, thinkingBudget: null });
    const [planned, triaged, uncapped] = server.requests;
    assert.equal(
      planned!.url,
      '/v1beta1/projects/test-proj/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    assert.deepEqual(planned!.body.generationConfig.thinkingConfig, { thinkingBudget: 512 });
    assert.equal(triaged!.body.generationConfig?.thinkingConfig, undefined);
    assert.equal(uncapped!.body.generationConfig?.thinkingConfig, undefined);
  });

  it('leaves thought parts out of the text', async () => {
    const server = await fakeServer([gemini.text('4', { input: 7, output: 2, thinking: 31 }, 'thinking about 2+2')]);
    const reply = await (await vertexKit.make(server.url)).call({ phase: 'ping', prompt: '2+2?' });
    assert.equal(reply.text, '4');
    assert.equal(reply.model, 'gemini-2.5-flash-001');
  });

  it('uses Vertex express mode with an API key when no project is set', async () => {
    const server = await fakeServer([gemini.text('pong', { input: 1, output: 1 })]);
    const backend = await makeBackend(parseLlmSpec({ backend: 'vertex', base_url: server.url }), {
      env: { GOOGLE_API_KEY: 'AIzaFakeFakeFakeFakeFakeFake0123' },
    });
    await backend.call({ phase: 'ping', prompt: 'ping' });
    assert.equal(server.requests[0]!.url, '/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent');
    assert.equal(server.requests[0]!.headers['x-goog-api-key'], 'AIzaFakeFakeFakeFakeFakeFake0123');
  });
});

describe('openai backend specifics', () => {
  it('splits reasoning tokens out of completion tokens, and sends no thinking budget', async () => {
    const server = await fakeServer([openai.text('pong', { input: 30, output: 5, thinking: 120 })]);
    const reply = await (await openaiKit.make(server.url)).call({ phase: 'plan', prompt: 'x', thinkingBudget: 512 });
    assert.deepEqual(reply.usage, { inputTokens: 30, outputTokens: 5, thinkingTokens: 120 });
    assert.deepEqual(Object.keys(server.requests[0]!.body).sort(), ['messages', 'model']);
    assert.equal(server.requests[0]!.url, '/v1/chat/completions');
    assert.equal(reply.model, 'served-model');
  });

  it('sends no authorization header when no key is set (local servers)', async () => {
    const server = await fakeServer([openai.text('pong', { input: 1, output: 1 })]);
    const backend = await makeBackend(
      parseLlmSpec({ backend: 'openai', model: 'qwen3:8b', base_url: `${server.url}/v1` }),
      { env: {} },
    );
    const reply = await backend.call({ phase: 'ping', prompt: 'ping' });
    assert.equal(server.requests[0]!.headers.authorization, undefined);
    assert.equal(reply.usd, 0);
  });

  it('answers tool arguments that are not a JSON object with an error, without running the tool', async () => {
    const server = await fakeServer([
      openai.toolCall('read_log', '{"path": "build.log"', { input: 1, output: 1 }),
      openai.text('ok', { input: 1, output: 1 }),
    ]);
    const tool = readLogTool();
    const reply = await (await openaiKit.make(server.url)).call({ phase: 'triage', prompt: 'x', tools: [tool] });
    assert.deepEqual(tool.asked, []);
    assert.deepEqual(openaiKit.toolResults(server.requests[1]!), [
      'ERROR: the arguments of read_log must be a JSON object',
    ]);
    assert.deepEqual(reply.toolCalls[0]!.args, { raw: '{"path": "build.log"' });
  });

  it('fails with LLMCallFailed on an answer that is not a chat completion', async () => {
    const server = await fakeServer([{ body: { choices: [] } }]);
    await assert.rejects(
      (await openaiKit.make(server.url)).call({ phase: 'plan', prompt: 'x' }),
      (error: unknown) => error instanceof LLMCallFailed && /not a chat completion: choices/.test(error.message),
    );
    assert.equal(server.requests.length, 1);
  });
});

describe('usdFor', () => {
  it('bills thinking tokens at the output price', () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 0, thinkingTokens: 1_000_000 };
    assert.equal(usdFor({ input: 0.3, output: 2.5 }, usage), 2.8);
  });
});
