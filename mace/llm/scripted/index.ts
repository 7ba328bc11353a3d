/**
 * The scripted offline agent: a deterministic policy, seeded per run, that reads the prompt the
 * loop actually sent and answers in the directive formats. It is a model of an LLM, not one: every
 * run records it as the backend. Token counts come from the prompt and reply lengths and are priced
 * like a named model, so cost reports and dollar budgets work offline.
 */
import { z } from 'zod';
import { nonNegativeInt, strictObject } from '../../spec.ts';
import type { LlmBackend, LlmReply, LlmRequest, ToolCallRecord } from '../types.ts';
import {
  AGENT_MISTAKES,
  drawMistakes,
  MISTAKES,
  planReply,
  postMortemReply,
  triageReply,
  type MistakeRates,
} from './policies.ts';
import { seeded, seedFrom } from './random.ts';
import { proposeReply } from './proposer.ts';
import { readPlannerPrompt } from './reading.ts';
import { rtlRepair } from './rtl.ts';
import { adaptTestbench } from './testbench.ts';
import { wrapperTask, writeWrapper } from './wrapper.ts';

export { AGENT_MISTAKES, MISTAKES, INVENTED_DEFINE, type Mistake, type MistakeRates } from './policies.ts';

const rate = z
  .number({ error: 'a mistake rate is a number from 0 to 1' })
  .min(0, { error: 'a mistake rate is at least 0' })
  .max(1, { error: 'a mistake rate is at most 1' });

/** The scripted agent's settings in a suite's llm.scripted section (or --scripted-* flags). */
export const ScriptedSettingsSchema = strictObject({
  seed: nonNegativeInt('seed').default(0).describe('Mixed with each run seed; the same seeds give the same replies'),
  priced_as: z
    .string()
    .min(1)
    .default('gemini-2.5-flash')
    .describe('The model whose prices its token counts are billed at'),
  mistakes: z
    .partialRecord(
      z.enum([...MISTAKES, ...AGENT_MISTAKES], {
        error: (iss) =>
          `unknown mistake ${JSON.stringify(iss.input)}; known: ${[...MISTAKES, ...AGENT_MISTAKES].join(', ')}`,
      }),
      rate,
    )
    .default({})
    .describe('Mistake rates, 0..1 each, per planner call (testbench_port: per unit_test call); all zero by default'),
});
export type ScriptedSettings = z.output<typeof ScriptedSettingsSchema>;

export interface ScriptedOptions {
  /** The run's seed: the same seed gives the same replies. */
  readonly seed: number;
  /** Mistake rates per planner call (testbench_port: per unit_test call), 0..1 each; all zero by default. */
  readonly mistakes?: MistakeRates;
  /** The model its tokens are priced as. */
  readonly pricedAs: string;
  /** Dollars for a call's usage, as the pricing table prices `pricedAs`. */
  readonly costUsd: (usage: LlmReply['usage']) => number;
}

/** About four characters per token, as for English text with Gemini and GPT tokenisers. */
export const CHARS_PER_TOKEN = 4;
const tokens = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);

export class ScriptedBackend implements LlmBackend {
  readonly name = 'scripted' as const;
  readonly model: string;
  /** It uses the tools an rtl or unit_test task offers, as an agent would. */
  readonly takesTools = true;
  private readonly options: ScriptedOptions;

  constructor(options: ScriptedOptions) {
    this.options = options;
    this.model = `scripted(${options.pricedAs})`;
  }

  async call(request: LlmRequest): Promise<LlmReply> {
    const started = performance.now();
    const random = seeded(seedFrom(this.options.seed, request.seed, request.tag ?? request.prompt, request.phase));
    const { text, toolCalls } = await this.reply(request, random);
    const thinking =
      request.phase === 'plan' || request.phase === 'plan_retry'
        ? Math.min(request.thinkingBudget ?? 1024, 200 + Math.floor(random() * 400))
        : 0;
    const usage = { inputTokens: tokens(request.prompt), outputTokens: tokens(text), thinkingTokens: thinking };
    return {
      text,
      model: this.model,
      usage,
      usd: this.options.costUsd(usage),
      latencyS: (performance.now() - started) / 1000,
      toolCalls,
    };
  }

  private async reply(
    request: LlmRequest,
    random: () => number,
  ): Promise<{ text: string; toolCalls: ToolCallRecord[] }> {
    const tools = request.tools ?? [];
    if (request.phase === 'rtl')
      return wrapperTask(request.prompt) ? writeWrapper(request.prompt, tools) : rtlRepair(request.prompt, tools);
    if (request.phase === 'unit_test') {
      // After a testbench mismatch the agent checks its port names: the mistake is not repeated.
      const careful = /testbench_mismatch/.test(request.prompt);
      const mistakes = careful ? new Set() : drawMistakes(random, this.options.mistakes ?? {}, AGENT_MISTAKES);
      return adaptTestbench(request.prompt, tools, { misnamePort: mistakes.has('testbench_port') });
    }
    return { text: this.text(request, random), toolCalls: [] };
  }

  private text(request: LlmRequest, random: () => number): string {
    switch (request.phase) {
      case 'plan':
      // A baseline agent (retry_agent) is asked for a design in the planner's directive format.
      case 'agent':
        return planReply(readPlannerPrompt(request.prompt), drawMistakes(random, this.options.mistakes ?? {}));
      case 'plan_retry': {
        // A retry is careful: the mistakes the check sent back are not repeated, but a model that
        // answered without a plan may do so again.
        const again = drawMistakes(random, { no_plan: this.options.mistakes?.no_plan ?? 0 });
        return planReply(readPlannerPrompt(request.prompt), again);
      }
      case 'triage':
        return triageReply(request.prompt);
      case 'post_mortem':
        return postMortemReply(request.prompt);
      case 'propose':
        return proposeReply(request.prompt, random);
      case 'ping':
        return 'pong';
      default:
        return `Noted. ${request.prompt.split('\n')[0]!.slice(0, 200)}`;
    }
  }
}
