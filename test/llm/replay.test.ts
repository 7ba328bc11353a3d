/**
 * Replay: a run is recorded through RunLlm (the OpenAI-compatible client against a local fake
 * server, into a real DuckDB file); a second run with another run id replays it from the database,
 * with the server no longer asked anything.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InputError } from '../../mace/errors.ts';
import { makeBackend, parseLlmSpec } from '../../mace/llm/factory.ts';
import { RunLlm, type LlmCall } from '../../mace/llm/recorder.ts';
import { recordedTag, ReplayMissing } from '../../mace/llm/replay.ts';
import { LLMCallFailed, type LlmReply } from '../../mace/llm/types.ts';
import { query } from '../../mace/store/readers.ts';
import { Store, closeAllStores } from '../../mace/store/store.ts';
import { tempDir } from '../helpers.ts';
import { fakeServer, openai, type FakeServer } from './fake-http.ts';
import { openaiKit, readLogTool } from './kits.ts';

after(closeAllStores);

/** The calls of a small run: plans, a plan retry, two task calls under one tag, a triage with a tool, a failure. */
const RUN: readonly LlmCall[] = [
  { phase: 'plan', prompt: 'plan 0', iteration: 0, thinkingBudget: 512 },
  { phase: 'plan_retry', prompt: 'plan 0 again', iteration: 0, attempt: 1, thinkingBudget: 512 },
  { phase: 'task', prompt: 'task a, first', iteration: 0, taskId: 'a' },
  { phase: 'task', prompt: 'task a, second', iteration: 0, taskId: 'a' },
  { phase: 'triage', prompt: 'triage a', iteration: 0, taskId: 'a', tools: [readLogTool()] },
  { phase: 'plan', prompt: 'plan 1', iteration: 1, thinkingBudget: 512 },
  { phase: 'post_mortem', prompt: 'post-mortem fails' },
];

async function settle(llm: RunLlm, call: LlmCall): Promise<LlmReply | string> {
  return llm.call(call).catch((error: Error) => `${error.name}: ${error.message}`);
}

describe('replay backend', () => {
  const db = join(tempDir(), 'replay.duckdb');
  let server: FakeServer;
  let recorded: (LlmReply | string)[];

  before(async () => {
    let n = 0;
    server = await fakeServer((request) => {
      const messages = request.body.messages as { content: string }[];
      const prompt = messages[0]!.content;
      if (prompt.includes('fails')) return openai.error(401, 'no such key');
      if (prompt.startsWith('triage') && messages.length === 1)
        return openai.toolCall('read_log', { path: 'sim.log' }, { input: 3, output: 1 });
      n += 1;
      return openai.text(`answer ${n} to ${prompt}`, { input: 10 * n, output: n, thinking: 2 * n });
    });
    const store = await Store.open(db);
    const llm = new RunLlm(await openaiKit.make(server.url), { runId: 'rec', seed: 3, store });
    recorded = [];
    for (const call of RUN) recorded.push(await settle(llm, call));
    await store.flush();
  });

  it('gives back the recorded replies, tokens, cost, model and tool calls, with no call to the model', async () => {
    const asked = server.requests.length;
    const store = await Store.open(db);
    const backend = await makeBackend(parseLlmSpec({ backend: 'replay', replay: { db, run_id: 'rec' } }));
    assert.equal(backend.name, 'replay');
    assert.equal(backend.model, 'served-model');
    const llm = new RunLlm(backend, { runId: 'again', store });
    const replayed: (LlmReply | string)[] = [];
    for (const call of RUN) replayed.push(await settle(llm, call));
    await store.flush();
    assert.equal(server.requests.length, asked);

    const strip = (r: LlmReply | string) => (typeof r === 'string' ? r : { ...r, latencyS: 0 });
    assert.deepEqual(replayed.slice(0, -1).map(strip), recorded.slice(0, -1).map(strip));
    assert.equal((replayed[4] as LlmReply).toolCalls.length, 1);
    // The recorded failure replays as a failure.
    assert.match(
      replayed.at(-1) as string,
      /^LLMCallFailed: replay: the recorded call rec\/run\/-\/post_mortem failed: .*HTTP 401/,
    );
    assert.equal(
      llm.totals().usd,
      (await query<{ usd: number }>(store, "SELECT sum(usd) AS usd FROM llm_calls WHERE run_id = 'rec'"))[0]!.usd,
    );

    const rows = await query<{ replay_tag: string; backend: string; reply: string | null }>(
      store,
      "SELECT replay_tag, backend, reply FROM llm_calls WHERE run_id = 'again' ORDER BY seq",
    );
    assert.deepEqual(rows[0], { replay_tag: 'again/iter0/-/plan', backend: 'replay', reply: 'answer 1 to plan 0' });
    assert.equal(rows.length, RUN.length);
  });

  it('fails with the tag when the recorded run has no reply for a call', async () => {
    const backend = await makeBackend(parseLlmSpec({ backend: 'replay', replay: { db, run_id: 'rec' } }));
    const llm = new RunLlm(backend, { runId: 'other' });
    await assert.rejects(llm.call({ phase: 'plan', prompt: 'plan 5', iteration: 5 }), (error: unknown) => {
      assert.ok(error instanceof ReplayMissing && error instanceof LLMCallFailed);
      assert.equal(error.tag, 'rec/iter5/-/plan');
      assert.match(
        error.message,
        /no recorded reply under rec\/iter5\/-\/plan in .*replay\.duckdb \(run rec recorded 7 calls/,
      );
      return true;
    });
    // A tag recorded twice answers twice, then runs out.
    await llm.call({ phase: 'task', prompt: 'x', iteration: 0, taskId: 'a' });
    await llm.call({ phase: 'task', prompt: 'x', iteration: 0, taskId: 'a' });
    await assert.rejects(llm.call({ phase: 'task', prompt: 'x', iteration: 0, taskId: 'a' }), /rec\/iter0\/a\/task/);
  });

  it('refuses, when it is made, a run with nothing recorded', async () => {
    await assert.rejects(
      makeBackend(parseLlmSpec({ backend: 'replay', replay: { db, run_id: 'nope' } })),
      (error: unknown) =>
        error instanceof InputError && /run nope has no recorded LLM calls in .*replay\.duckdb/.test(error.message),
    );
  });

  it("maps a tag to the recorded run's by its run-id prefix only", () => {
    assert.equal(recordedTag('again/iter2/dir/task/triage', 'rec'), 'rec/iter2/dir/task/triage');
  });
});
