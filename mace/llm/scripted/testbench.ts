/**
 * The scripted agent's unit_test policy: it reads the scaffolded testbench and the module's ports
 * (from the prompt's list, or from the module's source when the prompt could not give them) and
 * writes the testbench back with the real module as the DUT, every port connected (clock and reset to
 * clk and rst_n, inputs from src_bits, outputs to sink_bits) and the placeholders replaced by
 * numbers, as an engineer would. Its one mistake, at a configured rate, misnames an output pin
 * (as `mem_valid_WRONG` in the original's PINNOTFOUND log).
 */
import { readModule, type Port } from '../../openpiton/verilog.ts';
import type { LlmTool, ToolCallRecord } from '../types.ts';
import { toolUse } from './tool-use.ts';

const PORT_LINE = /^- (input|output|inout|port) ([A-Za-z_][\w$]*)(?: (\[[^\]]*\]))? \((?:(\d+) bits?|width unknown)\)$/;

/** The ports a unit_test prompt lists, in order; empty when it lists none. */
export function promptPorts(prompt: string): Port[] {
  return prompt
    .split('\n')
    .map((line) => PORT_LINE.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({
      name: m[2]!,
      direction: m[1] === 'port' ? null : (m[1] as Port['direction']),
      range: m[3] ?? null,
      width: m[4] ? Number(m[4]) : null,
      line: 0,
    }));
}

const CLOCK = /^(?:i_)?(?:clk|clock)(?:_i)?$/i;
const RESET_LOW = /^(?:i_)?(?:rst_?n|resetn|reset_n|rst_ni|arst_n|rstn)(?:_i)?$/i;
const RESET_HIGH = /^(?:i_)?(?:rst|reset)(?:_i)?$/i;

/** The DUT's connection list: clock and reset first by name, then inputs and outputs packed into the vectors. */
export function connections(
  ports: readonly Port[],
  misname?: string,
): { lines: string[]; inBits: number; outBits: number } {
  let inBits = 0;
  let outBits = 0;
  const slice = (vector: string, from: number, width: number) =>
    width === 1 ? `${vector}[${from}]` : `${vector}[${from + width - 1}:${from}]`;
  const lines: string[] = [];
  for (const port of ports) {
    const width = port.width ?? 1;
    let signal: string | undefined;
    if (port.direction === 'input' && width === 1 && CLOCK.test(port.name)) signal = 'clk';
    else if (port.direction === 'input' && width === 1 && RESET_LOW.test(port.name)) signal = 'rst_n';
    else if (port.direction === 'input' && width === 1 && RESET_HIGH.test(port.name)) signal = '~rst_n';
    else if (port.direction === 'input') {
      signal = slice('src_bits', inBits, width);
      inBits += width;
    } else if (port.direction === 'output') {
      signal = slice('sink_bits', outBits, width);
      outBits += width;
    }
    if (signal === undefined) continue;
    lines.push(`.${port.name === misname ? `${port.name}_WRONG` : port.name} (${signal})`);
  }
  return { lines, inBits, outBits };
}

/** The scaffold rewritten for `module` with `ports`. */
export function adaptedTestbench(
  scaffold: string,
  env: string,
  module: string,
  ports: readonly Port[],
  misname?: string,
): string {
  const { lines, inBits, outBits } = connections(ports, misname);
  const cases = (scaffold.match(/`TEST_CASE_BEGIN\b/g) ?? []).length || 1;
  const numbers: Record<string, number> = {
    SRC_BIT_WIDTH: Math.max(1, inBits),
    SINK_BIT_WIDTH: Math.max(1, outBits),
    SRC_ENTRIES: 8,
    SINK_ENTRIES: 8,
    SRC_LOG2_ENTRIES: 3,
    SINK_LOG2_ENTRIES: 3,
    NUM_TEST_CASES: cases,
  };
  const dut = new RegExp(`(^[ \\t]*)${env}(\\s+dut\\s*\\()[\\s\\S]*?\\n([ \\t]*)\\);`, 'm');
  return scaffold
    .replace(dut, (_, indent: string, open: string, close: string) =>
      [
        `${indent}${module}${open}`,
        ...lines.map((l, i) => `${indent}    ${l}${i < lines.length - 1 ? ',' : ''}`),
        `${close});`,
      ].join('\n'),
    )
    .replace(new RegExp(`\\b(${Object.keys(numbers).join('|')})\\b`, 'g'), (name: string) => String(numbers[name]));
}

export async function adaptTestbench(
  prompt: string,
  tools: readonly LlmTool[],
  options: { readonly misnamePort: boolean },
): Promise<{ text: string; toolCalls: ToolCallRecord[] }> {
  const { use, calls: toolCalls } = toolUse(tools);
  const names = /module type from (\S+) to ([A-Za-z_][\w$]*)\./.exec(prompt);
  if (!names)
    return { text: 'The prompt does not say which module the testbench is for; I changed nothing.', toolCalls };
  const [, env, module] = names as unknown as [string, string, string];
  const scaffold = await use('read_testbench');
  if (scaffold.startsWith('ERROR:')) return { text: `I could not read the testbench: ${scaffold}`, toolCalls };
  let ports = promptPorts(prompt);
  if (!ports.length) {
    const source = await use('read_dut_source');
    try {
      ports = [...readModule(source, module).ports];
    } catch (error) {
      return { text: `I could not read the ports of ${module}: ${(error as Error).message}`, toolCalls };
    }
  }
  const misname = options.misnamePort ? ports.find((p) => p.direction === 'output')?.name : undefined;
  const result = await use('write_testbench', { content: adaptedTestbench(scaffold, env!, module!, ports, misname) });
  if (!result.startsWith('OK')) return { text: `Writing the testbench failed: ${result}`, toolCalls };
  return {
    text: `The testbench now instantiates ${module} with its ${ports.length} ports connected, and the widths and counts set.`,
    toolCalls,
  };
}
