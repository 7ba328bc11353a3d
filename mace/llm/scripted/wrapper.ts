/**
 * The scripted agent's Generic Tile policy: an rtl task that asks it to write a core's wrapper. It
 * reads the generated skeleton and the core's sources in rtl/ through the edit tools, finds the top
 * module (named in the task or the skeleton's comments), and writes the wrapper with the top module
 * instantiated and each of its ports wired to the wrapper's port of the same name.
 */
import { definedModules, readModule, type ModuleHeader } from '../../openpiton/verilog.ts';
import type { LlmTool, ToolCallRecord } from '../types.ts';
import { toolUse } from './tool-use.ts';

const WRAPPER = /(piton\/design\/chip\/tile\/generic\/(\w+))\/\2_wrapper\.v/;

/** The wrapper an rtl task's instruction asks for, when it asks for one. */
export function wrapperTask(prompt: string): { path: string; dir: string; name: string } | undefined {
  const task = /^Your task \([^)]*\): (.*)$/m.exec(prompt)?.[1] ?? '';
  const m = WRAPPER.exec(task);
  return m ? { path: m[0], dir: m[1]!, name: m[2]! } : undefined;
}

/** The skeleton with `top` instantiated before its endmodule, every port of `top` wired by name. */
export function writtenWrapper(skeleton: string, top: ModuleHeader, wrapperPorts: ReadonlySet<string>): string {
  const pins = top.ports.map(
    (p, i) => `        .${p.name}(${wrapperPorts.has(p.name) ? p.name : ''})${i < top.ports.length - 1 ? ',' : ''}`,
  );
  const instance = [`    ${top.name} core (`, ...pins, '    );', ''].join('\n');
  const at = skeleton.lastIndexOf('endmodule');
  return at < 0 ? skeleton : `${skeleton.slice(0, at)}${instance}${skeleton.slice(at)}`;
}

export async function writeWrapper(
  prompt: string,
  tools: readonly LlmTool[],
): Promise<{ text: string; toolCalls: ToolCallRecord[] }> {
  const { use, calls: toolCalls } = toolUse(tools);
  const task = wrapperTask(prompt)!;
  const skeleton = await use('read_file', { path: task.path });
  if (skeleton.startsWith('ERROR:')) return { text: `I could not read ${task.path}: ${skeleton}`, toolCalls };
  let wrapperPorts: Set<string>;
  try {
    wrapperPorts = new Set(readModule(skeleton, `${task.name}_wrapper`).ports.map((p) => p.name));
  } catch (error) {
    return { text: `I could not read the wrapper's ports: ${(error as Error).message}`, toolCalls };
  }
  const named =
    /instantiate ([A-Za-z_][\w$]*)/.exec(prompt.match(/^Your task .*$/m)?.[0] ?? '')?.[1] ??
    /top module is ([A-Za-z_][\w$]*)/.exec(skeleton)?.[1];
  const listing = await use('list_files', { folder: `${task.dir}/rtl` });
  const candidates: ModuleHeader[] = [];
  for (const file of listing.startsWith('ERROR:') ? [] : listing.split('\n').filter((f) => /\.s?v$/.test(f))) {
    const text = await use('read_file', { path: `${task.dir}/rtl/${file}` });
    if (text.startsWith('ERROR:')) continue;
    for (const module of definedModules(text)) {
      try {
        candidates.push(readModule(text, module));
      } catch {
        // A module whose ports cannot be read is not one to instantiate.
      }
    }
  }
  const overlap = (m: ModuleHeader) => m.ports.filter((p) => wrapperPorts.has(p.name)).length;
  const top = candidates.find((m) => m.name === named) ?? [...candidates].sort((a, b) => overlap(b) - overlap(a)).at(0);
  if (!top) return { text: `No module in ${task.dir}/rtl to instantiate; the wrapper is unchanged.`, toolCalls };
  const result = await use('write_file', { path: task.path, content: writtenWrapper(skeleton, top, wrapperPorts) });
  if (!result.startsWith('OK')) return { text: `Writing the wrapper failed: ${result}`, toolCalls };
  return {
    text: `${task.path} now instantiates ${top.name} with its ${top.ports.length} ports wired to the wrapper's.`,
    toolCalls,
  };
}
