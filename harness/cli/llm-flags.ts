/**
 * The `--llm` flags, shared by every command that talks to a model (`mace llm ping`, `mace run`):
 * they build the same LLM spec a suite file's `llm:` section holds, validated by the same schema.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { parseLlmSpec } from '../../mace/llm/factory.ts';
import type { LlmSpec } from '../../mace/llm/spec.ts';
import { BACKEND_NAMES } from '../../mace/llm/types.ts';

export interface LlmFlags {
  readonly llm: string;
  readonly model?: string;
  readonly price?: { input: number; output: number };
  readonly pricing?: string;
  readonly baseUrl?: string;
  readonly replayDb?: string;
  readonly replayRun?: string;
}

/** `IN,OUT` in USD per million tokens, e.g. `0.30,2.50` or `0,0`. */
export function priceFlag(value: string): { input: number; output: number } {
  const parts = value.split(',').map((p) => Number(p.trim()));
  if (parts.length !== 2 || parts.some((n) => !Number.isFinite(n) || n < 0))
    throw new InvalidArgumentError(
      'expected IN,OUT: USD per million input and output tokens, such as 0.30,2.50 or 0,0.',
    );
  return { input: parts[0]!, output: parts[1]! };
}

/**
 * Add the LLM flags to a command. --llm is required unless there is a `defaultBackend`, or unless
 * `optional` (a suite's own llm section applies when it is not given).
 */
export function addLlmOptions(
  command: Command,
  defaultBackend?: string,
  options: { optional?: boolean } = {},
): Command {
  const llm = new Option('--llm <backend>', 'which LLM answers').choices(BACKEND_NAMES);
  return command
    .addOption(defaultBackend ? llm.default(defaultBackend) : options.optional ? llm : llm.makeOptionMandatory())
    .option('--model <name>', 'model name as the backend knows it (vertex: gemini-2.5-flash by default)')
    .addOption(
      new Option(
        '--price <in,out>',
        'USD per million input,output tokens, for a model not in the pricing table',
      ).argParser(priceFlag),
    )
    .option('--pricing <file>', 'a pricing table (YAML) instead of mace/llm/pricing.yaml')
    .option('--base-url <url>', 'openai: server root ending in /v1 (else OPENAI_BASE_URL); vertex: another endpoint')
    .option('--replay-db <path>', 'replay: the results database holding the recorded run')
    .option('--replay-run <id>', 'replay: the recorded run whose replies to give back');
}

/** The LLM spec the flags describe. */
export function llmSpecFromFlags(flags: LlmFlags): LlmSpec {
  const replay = flags.replayDb || flags.replayRun ? { db: flags.replayDb, run_id: flags.replayRun } : undefined;
  const raw = {
    backend: flags.llm,
    model: flags.model,
    price: flags.price,
    pricing: flags.pricing,
    base_url: flags.baseUrl,
    replay,
  };
  return parseLlmSpec(
    Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)),
    'LLM flags (--llm, --model, --price, --base-url, --replay-db, --replay-run)',
  );
}
