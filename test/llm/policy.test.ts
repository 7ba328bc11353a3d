/** The parts around the backends: backoff, redaction, replay tags and the LLM spec. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from '../../mace/errors.ts';
import { makeBackend, parseLlmSpec } from '../../mace/llm/factory.ts';
import { redact } from '../../mace/llm/redact.ts';
import { backoffMs, HttpStatusError, requestedDelayMs, retryPolicy } from '../../mace/llm/retry.ts';
import { parseReplayTag, replayTag } from '../../mace/llm/types.ts';

describe('backoff', () => {
  const policy = retryPolicy({ retries: 6, base_delay_s: 1, max_delay_s: 10 });

  it('doubles from the base delay, stays under the maximum, and jitters within the upper half', () => {
    const ceilings = [1000, 2000, 4000, 8000, 10_000, 10_000];
    ceilings.forEach((ceiling, retry) => {
      assert.equal(
        backoffMs(retry, policy, () => 0),
        ceiling / 2,
      );
      assert.equal(
        backoffMs(retry, policy, () => 1),
        ceiling,
      );
    });
  });

  it("reads the wait a server asks for: Retry-After seconds or date, or Google's retryDelay", () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    assert.equal(requestedDelayMs(new HttpStatusError(429, 'slow down', '7'), now), 7000);
    assert.equal(requestedDelayMs(new HttpStatusError(429, 'slow down', 'Sun, 29 Nov 2026 12:00:30 GMT'), now), 30_000);
    assert.equal(requestedDelayMs(new HttpStatusError(429, 'slow down', 'Sun, 29 Nov 2026 11:00:00 GMT'), now), 0);
    assert.equal(requestedDelayMs(new Error('{"error":{"details":[{"retryDelay": "2.5s"}]}}')), 2500);
    assert.equal(requestedDelayMs(new HttpStatusError(503, 'busy', null)), undefined);
    assert.equal(requestedDelayMs(new HttpStatusError(429, 'busy', 'soon')), undefined);
  });
});

describe('redact', () => {
  it('cuts out known secrets and anything shaped like a key or token', () => {
    const text = [
      'Incorrect API key provided: sk-proj-abc123def456ghi. You can find your key at ...',
      'Authorization: Bearer ya29.a0AfB_byC-secret',
      'GET /v1/models?key=AIzaSyA-1234567890abcdefghijklmnop',
      '{"api_key": "plain-secret-value", "x-goog-api-key": "zzz"}',
      'my own secret: hunter22-custom',
    ].join('\n');
    const out = redact(text, ['hunter22-custom']);
    for (const secret of [
      'sk-proj-abc123def456ghi',
      'ya29.a0AfB_byC-secret',
      'AIzaSyA-1234567890',
      'plain-secret-value',
      'zzz',
      'hunter22',
    ])
      assert.ok(!out.includes(secret), `${secret} is gone from:\n${out}`);
    assert.match(out, /Incorrect API key provided: \[redacted\]\. You can find your key at/);
    assert.match(out, /Authorization: \[redacted\]/);
  });

  it('leaves ordinary text alone', () => {
    const text = 'HTTP 503: The service is currently unavailable; key points: none';
    assert.equal(redact(text), text);
  });
});

describe('replay tags', () => {
  it('parse back to what made them, task ids with slashes included', () => {
    for (const [iteration, taskId, phase, attempt] of [
      [0, null, 'plan', undefined],
      [3, 'cfg/l1d', 'triage', undefined],
      [null, null, 'post_mortem', undefined],
      [1, null, 'plan_retry', 2],
    ] as const) {
      const tag = replayTag('3f9c2a1b7d04', iteration, taskId, attempt === undefined ? phase : `${phase}:${attempt}`);
      assert.deepEqual(parseReplayTag(tag), { runId: '3f9c2a1b7d04', iteration, taskId, phase, attempt });
    }
  });

  it('refuse what replayTag cannot write', () => {
    for (const bad of ['run/iter0/plan', 'r/iterx/-/plan', 'r/iter0/-/dance', 'r/iter0/-/plan:x', '/iter0/-/plan'])
      assert.equal(parseReplayTag(bad), undefined, bad);
  });
});

describe('LLM spec', () => {
  it('fills in the defaults', () => {
    assert.deepEqual(parseLlmSpec({ backend: 'vertex' }), {
      backend: 'vertex',
      retry: { retries: 4, base_delay_s: 1, max_delay_s: 30 },
      timeout_s: 300,
      max_tool_rounds: 8,
    });
  });

  it('names each field at fault and what is accepted', () => {
    assert.throws(
      () =>
        parseLlmSpec(
          { backend: 'gpt', retry: { retries: -1 }, base_url: 'localhost:8080', temperature: 0 },
          'suites/x.yaml llm',
        ),
      (error: unknown) => {
        assert.ok(error instanceof InputError);
        assert.match(error.message, /^invalid suites\/x\.yaml llm:/);
        assert.match(error.message, /backend: backend must be one of vertex, openai, scripted, replay; got "gpt"/);
        assert.match(error.message, /retry\.retries: retries must be an integer >= 0, got -1/);
        assert.match(error.message, /base_url: base_url must be an http\(s\) URL/);
        assert.match(error.message, /unknown key "temperature"; accepted: backend, model/);
        return true;
      },
    );
  });

  it('refuses settings meant for another backend, and replay without its database', () => {
    assert.throws(
      () => parseLlmSpec({ backend: 'vertex', replay: { db: 'a', run_id: 'b' } }),
      /replay is for backend replay, not vertex/,
    );
    assert.throws(() => parseLlmSpec({ backend: 'replay' }), /backend replay needs replay: \{db, run_id\}/);
    assert.throws(() => parseLlmSpec({ backend: 'openai', scripted: { seed: 1 } }), /scripted is for backend scripted/);
  });

  it('names what a network backend lacks when it is made', async () => {
    await assert.rejects(
      makeBackend(parseLlmSpec({ backend: 'vertex' }), { env: {} }),
      /needs a Google Cloud project: set GOOGLE_CLOUD_PROJECT/,
    );
    await assert.rejects(
      makeBackend(parseLlmSpec({ backend: 'openai' }), { env: {} }),
      /needs a model: give --model NAME .* or set OPENAI_MODEL/,
    );
    const fromEnv = await makeBackend(parseLlmSpec({ backend: 'openai' }), { env: { OPENAI_MODEL: 'gpt-4o' } });
    assert.equal(fromEnv.model, 'gpt-4o');
  });
});
