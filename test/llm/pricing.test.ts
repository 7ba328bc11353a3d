import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InputError } from '../../mace/errors.ts';
import { makeBackend, parseLlmSpec } from '../../mace/llm/factory.ts';
import { costUsd, DEFAULT_PRICING_PATH, loadPricing, priceOf } from '../../mace/llm/pricing.ts';
import { tempDir } from '../helpers.ts';

describe('pricing table', () => {
  it('prices gemini-2.5-flash at 0.30 / 2.50 per million tokens, thinking as output', () => {
    assert.deepEqual(loadPricing().models['gemini-2.5-flash'], { input: 0.3, output: 2.5 });
    const usd = costUsd('gemini-2.5-flash', { inputTokens: 2000, outputTokens: 100, thinkingTokens: 400 });
    assert.equal(usd, (2000 * 0.3 + 500 * 2.5) / 1e6);
  });

  it('lists Gemini, OpenAI and local models, the local ones free', () => {
    const models = loadPricing().models;
    for (const name of ['gemini-2.5-pro', 'gemini-2.5-flash-lite', 'gpt-4o-mini', 'qwen3:8b'])
      assert.ok(models[name], `${name} is priced`);
    assert.deepEqual([models['qwen3:8b']!.input, models['qwen3:8b']!.output], [0, 0]);
  });

  it('refuses a model it does not list, naming the model and the file, unless a price is given', () => {
    assert.throws(
      () => priceOf('my-finetune'),
      (error: unknown) =>
        error instanceof InputError &&
        error.message.includes('no price for model "my-finetune"') &&
        error.message.includes(DEFAULT_PRICING_PATH) &&
        error.message.includes('--price IN,OUT'),
    );
    assert.deepEqual(priceOf('my-finetune', { override: { input: 0, output: 0 } }), { input: 0, output: 0 });
  });

  it('checks the price when a backend is made, before any call', async () => {
    const spec = parseLlmSpec({ backend: 'openai', model: 'my-finetune', base_url: 'http://127.0.0.1:1/v1' });
    await assert.rejects(makeBackend(spec, { env: {} }), /no price for model "my-finetune"/);
    const priced = await makeBackend({ ...spec, price: { input: 0.1, output: 0.2 } }, { env: {} });
    assert.equal(priced.model, 'my-finetune');
  });

  it('reads another table, and names the file and field of a bad one', () => {
    const dir = tempDir();
    const good = join(dir, 'lab.yaml');
    writeFileSync(good, 'models:\n  lab-model: { input: 1, output: 2 }\n');
    const spec = parseLlmSpec({ backend: 'openai', model: 'lab-model', pricing: good });
    assert.deepEqual(priceOf('lab-model', { table: loadPricing(spec.pricing) }), { input: 1, output: 2 });

    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'models:\n  lab-model: { input: -1, outptu: 2 }\n');
    assert.throws(
      () => loadPricing(bad),
      (error: unknown) =>
        error instanceof InputError &&
        error.message.includes(bad) &&
        /models\.lab-model\.input: input must be a number >= 0, got -1/.test(error.message) &&
        /unknown key "outptu"/.test(error.message),
    );
    assert.throws(() => loadPricing(join(dir, 'missing.yaml')), /cannot read the pricing table .*missing\.yaml/);
  });
});
