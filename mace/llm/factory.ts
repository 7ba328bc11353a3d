/**
 * From an LLM spec to a backend. BACKEND_MAKERS holds one maker per backend name; a backend joins
 * by adding its line there. Everything that can be wrong with a spec (an unknown backend, a model
 * without a price, a missing project or model) fails here, before a run starts.
 */
import { InputError, parseOrThrow } from '../errors.ts';
import { Store } from '../store/store.ts';
import { openAiBackend, OPENAI_DEFAULT_BASE_URL } from './openai.ts';
import { loadPricing, priceOf, type Price } from './pricing.ts';
import { replayBackend } from './replay.ts';
import type { NetworkBackendOptions } from './network.ts';
import { retryPolicy } from './retry.ts';
import { LlmSpecSchema, type LlmSpec } from './spec.ts';
import type { BackendName, LlmBackend } from './types.ts';
import { vertexBackend, type VertexOptions } from './vertex.ts';

/** The model vertex uses unless told otherwise: the one the original evaluation ran. */
export const DEFAULT_VERTEX_MODEL = 'gemini-2.5-flash';

export type Env = Readonly<Record<string, string | undefined>>;

export interface MakeContext {
  /** Where keys, projects and endpoints are read from; process.env by default. */
  readonly env?: Env;
  /** vertex: an auth client instead of Application Default Credentials (tests hand in a fake token). */
  readonly vertexAuthClient?: VertexOptions['authClient'];
}

export type BackendMaker = (spec: LlmSpec, ctx: MakeContext & { readonly env: Env }) => Promise<LlmBackend>;

/** One maker per backend; a backend not listed here is refused with a message saying so. */
export const BACKEND_MAKERS: Partial<Record<BackendName, BackendMaker>> = {
  async vertex(spec, ctx) {
    return vertexBackend({
      ...networkOptions(spec, spec.model ?? DEFAULT_VERTEX_MODEL),
      project: ctx.env.GOOGLE_CLOUD_PROJECT,
      location: ctx.env.GOOGLE_CLOUD_LOCATION,
      apiKey: ctx.env.GOOGLE_API_KEY,
      baseUrl: spec.base_url ?? ctx.env.GOOGLE_VERTEX_BASE_URL,
      authClient: ctx.vertexAuthClient,
    });
  },
  async openai(spec, ctx) {
    const model = spec.model ?? ctx.env.OPENAI_MODEL;
    if (!model)
      throw new InputError(
        'the openai backend needs a model: give --model NAME (or model: in the suite) as the server names it, ' +
          'or set OPENAI_MODEL',
      );
    return openAiBackend({
      ...networkOptions(spec, model),
      baseUrl: spec.base_url ?? ctx.env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL,
      apiKey: ctx.env.OPENAI_API_KEY,
    });
  },
  async replay(spec) {
    const { db, run_id } = spec.replay!;
    return replayBackend({ store: await Store.openForRead(db), runId: run_id });
  },
};

/** Validate an LLM section (from a suite file or built from flags); `where` names it in errors. */
export function parseLlmSpec(value: unknown, where = 'LLM settings'): LlmSpec {
  return parseOrThrow(LlmSpecSchema, value, where);
}

/**
 * Make the backend a spec names.
 * @example const backend = await makeBackend(parseLlmSpec({ backend: 'openai', model: 'qwen3:8b' }));
 */
export async function makeBackend(spec: LlmSpec, ctx: MakeContext = {}): Promise<LlmBackend> {
  const maker = BACKEND_MAKERS[spec.backend];
  if (!maker)
    throw new InputError(
      `the ${spec.backend} backend is not available in this build; available: ${Object.keys(BACKEND_MAKERS).join(', ')}`,
    );
  return maker(spec, { ...ctx, env: ctx.env ?? process.env });
}

/** The price a spec's model is billed at: its override, else its pricing table's entry (or an InputError). */
export function specPrice(spec: LlmSpec, model: string): Price {
  return priceOf(model, { override: spec.price, table: spec.pricing ? loadPricing(spec.pricing) : undefined });
}

function networkOptions(spec: LlmSpec, model: string): NetworkBackendOptions {
  return {
    model,
    price: specPrice(spec, model),
    retry: retryPolicy(spec.retry),
    timeoutMs: spec.timeout_s * 1000,
    maxToolRounds: spec.max_tool_rounds,
  };
}
