/**
 * The tool-calling conversation shared by the backends that take tools: send, run the tools the
 * model asked for, answer them, and send again until the model answers in text. After `maxRounds`
 * rounds of tool calls the backend is asked for text with tool calling turned off, so a model that
 * keeps asking for tools still ends with an answer. Usage is summed over every turn.
 */
import type { LlmTool, LlmUsage, ToolCallRecord } from './types.ts';

export const NO_USAGE: LlmUsage = { inputTokens: 0, outputTokens: 0, thinkingTokens: 0 };

export function addUsage(a: LlmUsage, b: LlmUsage): LlmUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    thinkingTokens: a.thinkingTokens + b.thinkingTokens,
  };
}

/** A tool call the model asked for. `args` is the raw text when it was not a JSON object. */
export interface RequestedCall {
  readonly id?: string;
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>> | string;
}

export interface AnsweredCall extends RequestedCall {
  readonly result: string;
}

/** One model turn, as a backend reads it from its response. */
export interface Turn {
  readonly text: string;
  /** The model the server says answered, when it says. */
  readonly model: string | undefined;
  readonly calls: readonly RequestedCall[];
  readonly usage: LlmUsage;
}

export interface Conversation<T extends Turn> {
  readonly tools: readonly LlmTool[];
  readonly maxRounds: number;
  /** Send the conversation so far; `toolsAllowed` false asks for a text answer. */
  send(toolsAllowed: boolean): Promise<T>;
  /** Append the model's turn and the tool results to the conversation. */
  answer(turn: T, answered: readonly AnsweredCall[]): void;
}

export interface Converse<T extends Turn> {
  /** The turn that ended the conversation (the model's text answer). */
  readonly last: T;
  readonly usage: LlmUsage;
  readonly toolCalls: readonly ToolCallRecord[];
}

export async function converse<T extends Turn>(c: Conversation<T>): Promise<Converse<T>> {
  let usage = NO_USAGE;
  const toolCalls: ToolCallRecord[] = [];
  for (let round = 0; ; round++) {
    const toolsAllowed = c.tools.length > 0 && round < c.maxRounds;
    const turn = await c.send(toolsAllowed);
    usage = addUsage(usage, turn.usage);
    if (!toolsAllowed || turn.calls.length === 0) return { last: turn, usage, toolCalls };
    const answered: AnsweredCall[] = [];
    for (const call of turn.calls) {
      const result = await runTool(c.tools, call);
      answered.push({ ...call, result });
      toolCalls.push({ name: call.name, args: typeof call.args === 'string' ? { raw: call.args } : call.args, result });
    }
    c.answer(turn, answered);
  }
}

/** Run one requested call; every problem comes back as `ERROR: ...` text for the model to read. */
async function runTool(tools: readonly LlmTool[], call: RequestedCall): Promise<string> {
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) return `ERROR: there is no tool named ${call.name}; the tools are ${tools.map((t) => t.name).join(', ')}`;
  if (typeof call.args === 'string') return `ERROR: the arguments of ${call.name} must be a JSON object`;
  try {
    return await tool.execute(call.args);
  } catch (error) {
    // The contract says execute never throws; a tool that does still must not end the call.
    return `ERROR: ${error instanceof Error ? error.message : String(error)}`;
  }
}
