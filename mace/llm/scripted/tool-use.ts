/** How the scripted agent calls the tools a request offers: by name, as a model would, keeping a record of each call. */
import type { LlmTool, ToolCallRecord } from '../types.ts';

export interface ToolUse {
  /** Call a tool; an unknown one answers `ERROR: no tool <name>`, as a tool's own errors do. */
  readonly use: (name: string, args?: Record<string, unknown>) => Promise<string>;
  /** Every call made so far, for the reply's record. */
  readonly calls: ToolCallRecord[];
}

export function toolUse(tools: readonly LlmTool[]): ToolUse {
  const calls: ToolCallRecord[] = [];
  const use = async (name: string, args: Record<string, unknown> = {}) => {
    const tool = tools.find((t) => t.name === name);
    const result = tool ? await tool.execute(args) : `ERROR: no tool ${name}`;
    calls.push({ name, args, result });
    return result;
  };
  return { use, calls };
}
