/**
 * `mace llm ping` through the CLI, against local fake Vertex and OpenAI-compatible servers (the
 * one mock: they stand in for Google and OpenAI), and against a recorded run for replay.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RunLlm } from '../../mace/llm/recorder.ts';
import { Store, closeAllStores } from '../../mace/store/store.ts';
import { runCli, tempDir } from '../helpers.ts';
import { fakeServer, gemini, openai, refusedUrl } from '../llm/fake-http.ts';
import { OPENAI_KEY, openaiKit } from '../llm/kits.ts';

after(closeAllStores);

// This file runs in its own process, so the environment the CLI reads can be set here.
process.env.OPENAI_API_KEY = OPENAI_KEY;
delete process.env.GOOGLE_CLOUD_PROJECT;
delete process.env.GOOGLE_CLOUD_LOCATION;

/** `mace llm ping` through the openai backend at this server root. */
const pingOpenAi = (baseUrl: string, ...more: string[]) =>
  runCli('llm', 'ping', '--llm', 'openai', '--model', 'gpt-4o-mini', '--base-url', baseUrl, ...more);

describe('mace llm ping', () => {
  it('prints the model, tokens, cost and latency of one call to an OpenAI-compatible server', async () => {
    const server = await fakeServer([openai.text('pong', { input: 12, output: 3, thinking: 40 })]);
    const { code, stdout, stderr } = await pingOpenAi(`${server.url}/v1`);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^backend  openai\nmodel    served-model\n/);
    assert.match(stdout, /tokens   input 12, output 3, thinking 40\n/);
    assert.match(stdout, new RegExp(`cost     \\$${((12 * 0.15 + 43 * 0.6) / 1e6).toFixed(6).replace('.', '\\.')}\n`));
    assert.match(stdout, /latency  \d+\.\d\d s\nreply    pong\n$/);
    assert.equal(server.requests[0]!.body.model, 'gpt-4o-mini');
  });

  it('prints JSON with --json, here through Vertex (express mode, API key from the environment)', async () => {
    const server = await fakeServer([gemini.text('pong', { input: 9, output: 1, thinking: 20 }, 'hmm')]);
    process.env.GOOGLE_API_KEY = 'AIzaFakeFakeFakeFakeFakeFake0123';
    try {
      const { code, stdout, stderr } = await runCli(
        'llm',
        'ping',
        '--llm',
        'vertex',
        '--base-url',
        server.url,
        '--json',
      );
      assert.equal(code, 0, stderr);
      const result = JSON.parse(stdout);
      assert.deepEqual(
        { ...result, latency_s: typeof result.latency_s },
        {
          backend: 'vertex',
          model: 'gemini-2.5-flash-001',
          tokens: { input: 9, output: 1, thinking: 20 },
          usd: (9 * 0.3 + 21 * 2.5) / 1e6,
          latency_s: 'number',
          reply: 'pong',
        },
      );
    } finally {
      delete process.env.GOOGLE_API_KEY;
    }
  });

  it('exits 1 with the reason when the call fails, and shows no credential', async () => {
    const server = await fakeServer([openai.error(401, `Incorrect API key provided: ${OPENAI_KEY}`)]);
    const denied = await pingOpenAi(`${server.url}/v1`);
    assert.equal(denied.code, 1);
    assert.match(
      denied.stderr,
      /^llm ping failed: openai ping call failed: HTTP 401: Incorrect API key provided: \[redacted\]/,
    );
    assert.ok(!denied.stderr.includes(OPENAI_KEY));

    const refused = await pingOpenAi(await refusedUrl());
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /cannot reach the server: .*ECONNREFUSED/);
  });

  it('replays a recorded call named by its tag', async () => {
    const db = join(tempDir(), 'ping.duckdb');
    const server = await fakeServer([
      openai.text('TASK: base | deps= | kind=workload | run it', { input: 50, output: 12 }),
    ]);
    const store = await Store.open(db);
    const recorder = new RunLlm(await openaiKit.make(server.url), { runId: 'rec1', store });
    await recorder.call({ phase: 'plan', prompt: 'plan it', iteration: 0 });
    await store.flush();

    const flags = ['llm', 'ping', '--llm', 'replay', '--replay-db', db, '--replay-run', 'rec1'];
    const { code, stdout, stderr } = await runCli(...flags, '--tag', 'rec1/iter0/-/plan', '--json');
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout);
    assert.equal(result.reply, 'TASK: base | deps= | kind=workload | run it');
    assert.deepEqual(result.tokens, { input: 50, output: 12, thinking: 0 });
    assert.equal(result.model, 'served-model');

    const untagged = await runCli(...flags);
    assert.equal(untagged.code, 1);
    assert.match(untagged.stderr, /no recorded reply under rec1\/run\/-\/ping .*such as rec1\/iter0\/-\/plan/);
  });

  it('exits 2 on bad flags, naming what is accepted', async () => {
    const noBackend = await runCli('llm', 'ping');
    assert.equal(noBackend.code, 2);
    assert.match(noBackend.stderr, /required option '--llm <backend>' not specified/);

    const badPrice = await runCli('llm', 'ping', '--llm', 'openai', '--price', 'free');
    assert.equal(badPrice.code, 2);
    assert.match(badPrice.stderr, /expected IN,OUT: USD per million input and output tokens/);

    const unpriced = await runCli('llm', 'ping', '--llm', 'openai', '--model', 'my-finetune');
    assert.equal(unpriced.code, 2);
    assert.match(unpriced.stderr, /no price for model "my-finetune" in .*pricing\.yaml/);

    const badTag = await pingOpenAi('http://127.0.0.1:1/v1', '--tag', 'iter0/plan');
    assert.equal(badTag.code, 2);
    assert.match(badTag.stderr, /--tag "iter0\/plan" is not a replay tag/);

    const noDb = await runCli('llm', 'ping', '--llm', 'replay', '--replay-run', 'x');
    assert.equal(noDb.code, 2);
    assert.match(
      noDb.stderr,
      /replay\.db: replay needs db: the results database holding the recorded run \(--replay-db PATH\)/,
    );
  });
});
