/**
 * A unit_test task: its instruction is one module's RTL path. The module path is checked, a
 * Verilator testbench environment is scaffolded for it in the checkout, one LLM call (phase
 * unit_test) adapts the testbench with tools that read and write that testbench only and read the
 * module's source, and the environment is built (`sims -sys=<env>`). The task passes on its build
 * alone: OpenPiton's test infrastructure does not settle under Verilator, so the model is never run.
 * The scaffold is undone after the build.
 */
import { buildWithinBudget, type Checkout } from './checkouts.ts';
import type { ExecutionContext, TaskResult } from './integrator.ts';
import type { LlmTool } from './llm/types.ts';
import type { BuildArtifact } from './openpiton/artifacts.ts';
import { makeConfig, type PitonConfig } from './openpiton/config.ts';
import { modulePathProblem } from './openpiton/source-index.ts';
import {
  readDutPorts,
  readDutSource,
  readTestbench,
  scaffoldUnitTest,
  unitTestEnvName,
  UnitTestScaffoldError,
  writeTestbench,
  type DutPorts,
  type UnitTestEnv,
} from './openpiton/unit-test.ts';
import { budgetExhaustedBuild, notStartedBuild } from './openpiton/unstarted.ts';
import type { Port } from './openpiton/verilog.ts';
import { guard, NO_EDITS, textArg } from './rtl-edits.ts';
import type { MaceSpec, Task } from './spec.ts';

/** The failure reasons of a unit_test task that never reached sims. */
export const BAD_MODULE_PATH = 'unit_test_bad_module_path';
export const SCAFFOLD_FAILED = 'unit_test_scaffold_failed';

/** The build of a unit-test environment: `-sys=<env>` and nothing else (its sims config holds the rest). */
export function unitTestConfig(spec: MaceSpec, modulePath: string): PitonConfig {
  return makeConfig({
    sys: unitTestEnvName(modulePath),
    core: spec.core,
    generic_core: spec.generic_core?.name ?? '',
    config_rtl: [],
  });
}

export async function executeUnitTest(task: Task, checkout: Checkout, ctx: ExecutionContext): Promise<TaskResult> {
  const startedAt = new Date();
  const modulePath = task.instruction.trim();
  const config = unitTestConfig(ctx.spec, modulePath);
  const finish = (build: BuildArtifact, agentReply?: string): TaskResult => {
    const result: TaskResult = {
      task,
      config,
      edits: NO_EDITS,
      rtlDiff: '',
      ...(agentReply !== undefined ? { agentReply } : {}),
      build,
      runs: [],
      passed: build.success,
      gatePassed: false,
      checkout: checkout.root,
      startedAt,
      finishedAt: new Date(),
    };
    ctx.onTask?.(result);
    return result;
  };

  const problem = modulePathProblem(checkout.root, modulePath);
  if (problem) {
    const message = `unit_test module path ${JSON.stringify(modulePath)} ${problem}`;
    return finish({ ...notStartedBuild(config, BAD_MODULE_PATH, message), errors: [message] });
  }
  if (ctx.deadline.passed()) return finish(budgetExhaustedBuild(config));

  let scaffold;
  try {
    scaffold = await scaffoldUnitTest(checkout.root, modulePath, { signal: ctx.signal });
  } catch (error) {
    if (!(error instanceof UnitTestScaffoldError)) throw error;
    return finish({ ...notStartedBuild(config, SCAFFOLD_FAILED, error.message), errors: [error.message] });
  }
  try {
    const { env } = scaffold;
    const reply = ctx.llm
      ? await ctx.llm.call({
          phase: 'unit_test',
          prompt: unitTestPrompt(ctx, env, readDutPorts(checkout.root, modulePath)),
          iteration: ctx.iteration,
          taskId: task.id,
          tools: testbenchTools(checkout.root, env),
          signal: ctx.signal,
        })
      : undefined;
    // Unit tests run locally and carry no replay tag (the seed's Deterministic Replay).
    const build = await buildWithinBudget(checkout, config, ctx);
    return finish(build, reply?.text);
  } finally {
    scaffold.restore();
  }
}

/** How the prompt lists ports: `- input mem_rdata [31:0] (32 bits)`. */
export function describePorts(ports: readonly Port[]): string[] {
  return ports.map(
    (p) =>
      `- ${p.direction ?? 'port'} ${p.name}${p.range ? ` ${p.range}` : ''} ` +
      `(${p.width === null ? 'width unknown' : `${p.width} bit${p.width === 1 ? '' : 's'}`})`,
  );
}

export function unitTestPrompt(
  ctx: Pick<ExecutionContext, 'spec' | 'feedback'>,
  env: UnitTestEnv,
  dut: DutPorts,
): string {
  const ports =
    'ports' in dut
      ? `The ports of ${dut.module}, in declaration order:\n${describePorts(dut.ports).join('\n')}`
      : `(could not read real ports: ${dut.error})`;
  const parts = [
    `You are the agent of a unit_test task in a MACE bring-up loop for an OpenPiton chip with the ${ctx.spec.core} core.`,
    `Objective: ${ctx.spec.objective.trim()}`,
    `The unit-test environment ${env.name} was scaffolded for module ${env.module} (${env.modulePath}). ` +
      `Its testbench ${env.testbench} is a template: edit it so it builds against the real module.`,
    ports,
    [
      'Make these changes:',
      `1. Change the DUT's module type from ${env.name} to ${env.module}.`,
      '2. Replace the example connections (.input0, .input1, .input2, .output0, .output1) with the real ports: inputs from slices of src_bits, outputs to slices of sink_bits, and the clock and reset from clk and rst_n.',
      '3. Set SRC_BIT_WIDTH and SINK_BIT_WIDTH, and the #() parameters that use them, to the sums of the input and of the output widths, clock and reset left out.',
      '4. Set SRC_ENTRIES and SINK_ENTRIES, and SRC_LOG2_ENTRIES and SINK_LOG2_ENTRIES (for example 8 and 3).',
      '5. Replace NUM_TEST_CASES with the number of `TEST_CASE_BEGIN blocks.',
      'Keep the rest of the scaffolded testbench as it is. The task passes when the environment builds; it is not simulated.',
    ].join('\n'),
    'Tools: read_testbench, write_testbench (the whole file) and read_dut_source.',
  ];
  if (ctx.feedback?.trim()) parts.push(`What earlier attempts reported:\n${ctx.feedback.trim()}`);
  return parts.join('\n\n');
}

/** The agent's tools: the testbench, read and written whole, and the module's source, read only. They take no path. */
export function testbenchTools(root: string, env: UnitTestEnv): LlmTool[] {
  return [
    {
      name: 'read_testbench',
      description: `Read the scaffolded testbench ${env.testbench}.`,
      parameters: { type: 'object', properties: {} },
      execute: () => guard(() => readTestbench(root, env)),
    },
    {
      name: 'write_testbench',
      description: `Replace the whole content of the testbench ${env.testbench}.`,
      parameters: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] },
      execute: (args) =>
        guard(() => {
          const content = textArg(args, 'content');
          if (!content.trim()) return 'ERROR: content is empty; give the whole testbench';
          writeTestbench(root, env, content);
          return `OK, wrote ${content.length} characters to ${env.testbench}`;
        }),
    },
    {
      name: 'read_dut_source',
      description: `Read the source of the module under test, ${env.modulePath} (read-only).`,
      parameters: { type: 'object', properties: {} },
      execute: () => guard(() => readDutSource(root, env.modulePath)),
    },
  ];
}
