/**
 * Token usage to US dollars, from a pricing table (pricing.yaml: USD per million input and output
 * tokens per model, thinking billed as output), so `max_usd` budgets work on every backend. A model
 * the table lacks is an error when its backend is made, unless the caller gives a price.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import { InputError, parseOrThrow } from '../errors.ts';
import { nonNegativeNumber, strictObject } from '../spec.ts';
import type { LlmUsage } from './types.ts';

export const PriceSchema = strictObject({
  input: nonNegativeNumber('input').describe('USD per million prompt tokens'),
  output: nonNegativeNumber('output').describe(
    'USD per million reply tokens; thinking tokens are billed at this price',
  ),
  note: z.string().optional().describe('Where the price comes from, or what tier it is'),
});
export type Price = z.output<typeof PriceSchema>;

const PricingFileSchema = strictObject({
  models: z.record(z.string().min(1), PriceSchema),
});

export interface PriceTable {
  /** The file the prices came from, for error messages. */
  readonly path: string;
  readonly models: Readonly<Record<string, Price>>;
}

/** The project's pricing table. */
export const DEFAULT_PRICING_PATH = fileURLToPath(new URL('./pricing.yaml', import.meta.url));

const tables = new Map<string, PriceTable>();

/**
 * Read and validate a pricing file (cached per path).
 * @example loadPricing().models['gemini-2.5-flash'] // { input: 0.3, output: 2.5 }
 */
export function loadPricing(path: string = DEFAULT_PRICING_PATH): PriceTable {
  const cached = tables.get(path);
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read the pricing table ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new InputError(`pricing table ${path} is not valid YAML: ${(error as Error).message}`);
  }
  const file = parseOrThrow(PricingFileSchema, raw, `pricing table ${path}`);
  const table = { path, models: file.models };
  tables.set(path, table);
  return table;
}

/**
 * The price of a model: the override when one is given (for a model the table lacks, such as a
 * local one), else the table's entry. A model in neither is an InputError naming the model and the
 * file, so a run cannot start with its cost silently counted as zero.
 */
export function priceOf(model: string, options: { override?: Price; table?: PriceTable } = {}): Price {
  if (options.override) return options.override;
  const table = options.table ?? loadPricing();
  const price = table.models[model];
  if (price) return price;
  throw new InputError(
    `no price for model "${model}" in ${table.path}. Add it there (USD per million input and output tokens), ` +
      'or give one: `--price IN,OUT` on the command line or `llm.price: {input: IN, output: OUT}` in the suite ' +
      '(a model on your own machine: 0,0).',
  );
}

/** What a call with this usage costs at this price; thinking tokens are billed as output. */
export function usdFor(price: Price, usage: LlmUsage): number {
  return (usage.inputTokens * price.input + (usage.outputTokens + usage.thinkingTokens) * price.output) / 1e6;
}

/**
 * What a call of this model with this usage costs, from the table.
 * @example costUsd('gemini-2.5-flash', { inputTokens: 1000, outputTokens: 200, thinkingTokens: 300 }) // 0.00155
 */
export function costUsd(model: string, usage: LlmUsage, table?: PriceTable): number {
  return usdFor(priceOf(model, { table }), usage);
}
