/**
 * RunLlm over the real OpenAI-compatible client (against a local fake server) and a real DuckDB
 * store: every call lands in llm_calls, failed ones included, and no credential does.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RunLlm } from '../../mace/llm/recorder.ts';
import { LLMCallFailed } from '../../mace/llm/types.ts';
import { LlmCallRowSchema, query } from '../../mace/store/readers.ts';
import { Store, closeAllStores } from '../../mace/store/store.ts';
import { tempDir } from '../helpers.ts';
import { fakeServer, openai, type FakeAnswer, type FakeRequest } from './fake-http.ts';
import { OPENAI_KEY, openaiKit, readLogTool } from './kits.ts';

after(closeAllStores);

/** Answers by the first words of the prompt; `fail` echoes the credential it got, as servers do. */
function byPrompt(request: FakeRequest): FakeAnswer {
  const messages = request.body.messages as { role: string; content: string }[];
  const prompt = messages[0]!.content;
  if (prompt.startsWith('fail')) return openai.error(401, `Incorrect API key provided: ${OPENAI_KEY}`);
  if (prompt.startsWith('triage') && messages.length === 1)
    return openai.toolCall('read_log', { path: 'sim.log' }, { input: 40, output: 4 });
  return openai.text(`reply to ${prompt}`, { input: 100, output: 10, thinking: 5 });
}

describe('RunLlm', () => {
  it('records every call, failed ones included, with its run, seq, tag, tokens, cost and reply', async () => {
    const store = await Store.open(join(tempDir(), 'calls.duckdb'));
    const server = await fakeServer(byPrompt);
    const llm = new RunLlm(await openaiKit.make(server.url), { runId: 'run1', seed: 7, store });

    await llm.call({ phase: 'plan', prompt: 'plan it', iteration: 0, thinkingBudget: 512 });
    await llm.call({ phase: 'plan_retry', prompt: 'plan again', iteration: 0, attempt: 1 });
    await llm.call({ phase: 'triage', prompt: 'triage base', iteration: 0, taskId: 'base', tools: [readLogTool()] });
    await assert.rejects(llm.call({ phase: 'post_mortem', prompt: 'fail now' }), LLMCallFailed);
    // Calls commit with the run's next write; a flush stands in for it here.
    await store.flush();

    const rows = (await query(store, 'SELECT * FROM llm_calls WHERE run_id = $1 ORDER BY seq', ['run1'])).map((r) =>
      LlmCallRowSchema.parse(r),
    );
    assert.deepEqual(
      rows.map((r) => [r.seq, r.iteration, r.phase, r.task_id, r.replay_tag, r.ok]),
      [
        [0, 0, 'plan', null, 'run1/iter0/-/plan', true],
        [1, 0, 'plan_retry', null, 'run1/iter0/-/plan_retry:1', true],
        [2, 0, 'triage', 'base', 'run1/iter0/base/triage', true],
        [3, null, 'post_mortem', null, 'run1/run/-/post_mortem', false],
      ],
    );
    const [plan, , triage, failed] = rows;
    assert.equal(plan!.backend, 'openai');
    assert.equal(plan!.model, 'served-model');
    assert.equal(plan!.prompt, 'plan it');
    assert.equal(plan!.reply, 'reply to plan it');
    assert.deepEqual([plan!.input_tokens, plan!.output_tokens, plan!.thinking_tokens], [100, 10, 5]);
    assert.equal(plan!.usd, (100 * 0.15 + 15 * 0.6) / 1e6);
    assert.ok(plan!.wall_s > 0 && plan!.started_at instanceof Date);
    assert.equal(plan!.error, null);

    // The triage call's two turns are summed, and its tool call is recorded.
    assert.deepEqual([triage!.input_tokens, triage!.output_tokens, triage!.thinking_tokens], [140, 14, 5]);
    assert.deepEqual(triage!.tool_calls, [
      { name: 'read_log', args: { path: 'sim.log' }, result: 'contents of sim.log: %Error: l15.v:12: syntax error' },
    ]);

    assert.equal(failed!.reply, null);
    assert.equal(failed!.model, 'gpt-4o-mini');
    assert.deepEqual([failed!.input_tokens, failed!.output_tokens, failed!.usd], [0, 0, 0]);
    assert.match(failed!.error!, /^LLMCallFailed: openai post_mortem call failed: HTTP 401: Incorrect API key/);

    // The run's seed reaches every request.
    assert.deepEqual(
      server.requests.map((r) => r.body.seed),
      [7, 7, 7, 7, 7],
    );
  });

  it('keeps no credential anywhere in llm_calls', async () => {
    const store = await Store.open(join(tempDir(), 'secrets.duckdb'));
    const server = await fakeServer(byPrompt);
    const llm = new RunLlm(await openaiKit.make(server.url), { runId: 'run2', store });
    await llm.call({ phase: 'plan', prompt: 'plan it', iteration: 0 });
    await assert.rejects(llm.call({ phase: 'triage', prompt: 'fail please', iteration: 0 }), (error: Error) => {
      assert.ok(!error.message.includes(OPENAI_KEY));
      return true;
    });
    await store.flush();
    const [dump] = await query<{ text: string }>(
      store,
      "SELECT string_agg(CAST(c AS VARCHAR), '\n') AS text FROM llm_calls c",
    );
    assert.match(dump!.text, /Incorrect API key provided: \[redacted\]/);
    assert.ok(!dump!.text.includes(OPENAI_KEY));
    assert.ok(!dump!.text.includes(OPENAI_KEY.slice(-12)));
  });

  it('keeps running totals for the run and per iteration, and works without a store', async () => {
    const server = await fakeServer(byPrompt);
    const llm = new RunLlm(await openaiKit.make(server.url), { runId: 'ping' });
    await llm.call({ phase: 'plan', prompt: 'a', iteration: 0 });
    await llm.call({ phase: 'plan', prompt: 'b', iteration: 1 });
    await assert.rejects(llm.call({ phase: 'task', prompt: 'fail', iteration: 1, taskId: 't' }));
    const one = (100 * 0.15 + 15 * 0.6) / 1e6;
    assert.deepEqual(llm.totals(), {
      calls: 3,
      failed: 1,
      inputTokens: 200,
      outputTokens: 20,
      thinkingTokens: 10,
      usd: 2 * one,
    });
    assert.deepEqual(llm.totals(1), {
      calls: 2,
      failed: 1,
      inputTokens: 100,
      outputTokens: 10,
      thinkingTokens: 5,
      usd: one,
    });
    assert.deepEqual(
      llm.calls().map((c) => c.replayTag),
      ['ping/iter0/-/plan', 'ping/iter1/-/plan', 'ping/iter1/t/task'],
    );
  });

  it('numbers concurrent calls in the order they were made', async () => {
    const server = await fakeServer((request) => ({
      ...openai.text('ok', { input: 1, output: 1 }),
      // The first call answers last.
      delayMs: request.body.messages[0].content === 'first' ? 80 : 0,
    }));
    const llm = new RunLlm(await openaiKit.make(server.url), { runId: 'par' });
    await Promise.all([
      llm.call({ phase: 'task', prompt: 'first', iteration: 0, taskId: 'a' }),
      llm.call({ phase: 'task', prompt: 'second', iteration: 0, taskId: 'b' }),
    ]);
    assert.deepEqual(
      llm.calls().map((c) => [c.seq, c.prompt]),
      [
        [0, 'first'],
        [1, 'second'],
      ],
    );
  });
});
