/**
 * The LLM section of a suite file, and what `--llm` and its flags build on the command line: which
 * backend, which model, and how it is priced and retried. Credentials never appear here: keys and
 * projects come from the environment, so a spec can be recorded with a run as it is.
 */
import { z } from 'zod';
import { oneOf, positiveInt, positiveNumber, strictObject } from '../spec.ts';
import { PriceSchema } from './pricing.ts';
import { RetrySpecSchema } from './retry.ts';
import { BACKEND_NAMES } from './types.ts';

/** Settings that only some backends read, and which backends those are. */
const ONLY_FOR: Readonly<Record<string, readonly string[]>> = {
  base_url: ['vertex', 'openai'],
  replay: ['replay'],
  scripted: ['scripted'],
};

export const LlmSpecSchema = strictObject({
  backend: oneOf(BACKEND_NAMES, 'backend').describe('Which backend answers the calls'),
  model: z
    .string()
    .min(1)
    .optional()
    .describe('Model name as the backend knows it; vertex defaults to gemini-2.5-flash, openai to OPENAI_MODEL'),
  price: PriceSchema.optional().describe('USD per million tokens, for a model missing from the pricing table'),
  pricing: z.string().min(1).optional().describe('Another pricing table (YAML) instead of mace/llm/pricing.yaml'),
  base_url: z
    .url({ protocol: /^https?$/, error: 'base_url must be an http(s) URL such as http://127.0.0.1:8080/v1' })
    .optional()
    .describe('openai: the server root ending in /v1 (else OPENAI_BASE_URL); vertex: another endpoint'),
  retry: RetrySpecSchema.prefault({}),
  timeout_s: positiveNumber('timeout_s').default(300).describe('Longest wait for one HTTP request'),
  max_tool_rounds: positiveInt('max_tool_rounds')
    .default(8)
    .describe('Rounds of tool calls before the model must answer in text'),
  replay: strictObject({
    db: z
      .string({ error: 'replay needs db: the results database holding the recorded run (--replay-db PATH)' })
      .min(1)
      .describe('The results database holding the recorded run'),
    run_id: z
      .string({ error: 'replay needs run_id: the recorded run (--replay-run ID)' })
      .min(1)
      .describe('The recorded run'),
  })
    .optional()
    .describe('replay: where the recorded replies are'),
  scripted: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("scripted: the offline agent's own settings, validated by its maker"),
}).superRefine((spec, ctx) => {
  for (const [key, backends] of Object.entries(ONLY_FOR)) {
    if (spec[key as keyof typeof spec] !== undefined && !backends.includes(spec.backend))
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `${key} is for backend ${backends.join(' or ')}, not ${spec.backend}`,
      });
  }
  if (spec.backend === 'replay' && !spec.replay)
    ctx.addIssue({
      code: 'custom',
      path: ['replay'],
      message: 'backend replay needs replay: {db, run_id} (on the command line: --replay-db PATH --replay-run ID)',
    });
});
export type LlmSpec = z.output<typeof LlmSpecSchema>;
