/**
 * `mace run`: one MACE loop from flags, on OpenPiton checkouts or offline ones, recorded in a
 * results database; prints each iteration as it goes, then the status, the summary and how to see
 * the whole trace. Exit code 0 when the run passed, 1 otherwise.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { InputError, parseOrThrow } from '../../../mace/errors.ts';
import { makeBackend } from '../../../mace/llm/factory.ts';
import { RunLlm } from '../../../mace/llm/recorder.ts';
import { runMaceLoop, newRunId } from '../../../mace/orchestrator.ts';
import { WORKLOADS_DIR } from '../../../mace/paths.ts';
import { CORES, type Core } from '../../../mace/openpiton/geometry.ts';
import { LoopOptionsSchema, makeSpec, type LoopOptions } from '../../../mace/spec.ts';
import { Store } from '../../../mace/store/store.ts';
import { claimCheckouts } from '../../runner/claim.ts';
import { openFor, recoverCheckouts, resolveCheckouts } from '../../runner/checkouts.ts';
import { nonNegativeInt, positiveInt } from '../args.ts';
import { DB_OPTION_HELP, DEFAULT_DB } from '../defaults.ts';
import { printJson } from '../io.ts';
import { addLlmOptions, llmSpecFromFlags, type LlmFlags } from '../llm-flags.ts';
import type { CommandContext } from '../main.ts';
import { parseLabels } from './suite.ts';

interface RunFlags extends LlmFlags {
  readonly core: Core;
  readonly mesh: readonly [number, number];
  readonly workload: string[];
  readonly objective: string;
  readonly pitonRoot?: string[];
  readonly offline: number;
  readonly options?: Partial<LoopOptions>;
  readonly maxIterations?: number;
  readonly maxUsd?: number;
  readonly maxWallS?: number;
  readonly seed: number;
  readonly loginShell: boolean;
  readonly label?: string[];
  readonly db: string;
  readonly json?: boolean;
}

/** `2x2` → [2, 2]. */
export function meshFlag(value: string): [number, number] {
  const match = /^(\d+)x(\d+)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('expected XxY tiles, such as 2x2 or 4x1.');
  return [Number(match[1]), Number(match[2])];
}

/** `triage=raw,narrowing=false,planner_thinking=null` → loop options (checked against LoopOptions). */
export function optionsFlag(value: string): Partial<LoopOptions> {
  const raw: Record<string, unknown> = {};
  for (const pair of value.split(',').filter((p) => p.trim())) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new InvalidArgumentError(`expected k=v pairs such as triage=raw,narrowing=false; got ${pair}.`);
    const text = pair.slice(eq + 1).trim();
    raw[pair.slice(0, eq).trim()] =
      text === 'true'
        ? true
        : text === 'false'
          ? false
          : text === 'null'
            ? null
            : /^\d+$/.test(text)
              ? Number(text)
              : text;
  }
  const parsed = LoopOptionsSchema.safeParse(raw);
  if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues.map((i) => i.message).join('; '));
  return raw as Partial<LoopOptions>;
}

const repeatable = (value: string, previous: string[] = []) => [...previous, value];
const usd = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number of dollars.');
  return n;
};

export function registerRun(program: Command, ctx: CommandContext): void {
  const command = program
    .command('run')
    .description('Run one MACE loop from flags, on OpenPiton checkouts (--piton-root) or offline ones')
    .addOption(new Option('--core <core>', 'the core').choices(CORES).default('ariane'))
    .addOption(new Option('--mesh <XxY>', 'tiles, such as 2x2').argParser(meshFlag).makeOptionMandatory())
    .option('--workload <program>', 'a gate program (repeat for more; they run in order)', repeatable)
    .requiredOption('--objective <text>', 'what the loop is asked to do, in prose')
    .option('--piton-root <dir>', 'an OpenPiton checkout (repeat for more); none: offline checkouts', repeatable)
    .addOption(
      new Option('--offline <n>', 'how many offline checkouts, without --piton-root').argParser(positiveInt).default(2),
    )
    .addOption(
      new Option('--options <k=v,...>', 'loop options, such as triage=raw,narrowing=false').argParser(optionsFlag),
    )
    .addOption(new Option('--max-iterations <n>', 'iteration budget (default 10)').argParser(positiveInt))
    .addOption(new Option('--max-usd <x>', 'LLM dollar budget (default 20)').argParser(usd))
    .addOption(new Option('--max-wall-s <n>', 'wall-clock budget in seconds (default 3600)').argParser(positiveInt))
    .addOption(
      new Option('--seed <n>', 'the run seed (LLM sampling, scripted agent)').argParser(nonNegativeInt).default(0),
    )
    .option('--no-login-shell', 'run sims in a plain bash, skipping the login profile')
    .option('--label <k=v>', 'record a label with the run (repeatable)', repeatable)
    .option('--db <path>', DB_OPTION_HELP, DEFAULT_DB)
    .option('--json', 'print the outcome as JSON');
  addLlmOptions(command, 'scripted')
    .addHelpText(
      'after',
      `
With no --piton-root the loop runs on offline checkouts (a calibrated model of OpenPiton, under
$MACE_HOME or ./.mace) and, unless --llm says otherwise, the scripted agent.

Examples:
  $ mace run --core pico --mesh 2x2 --workload addi.S --objective "Verify addi.S passes on a 2x2 pico mesh. The task needs the CONFIG_DISABLE_BIST_CLEAR RTL define." --no-login-shell
  $ mace run --core ariane --mesh 2x2 --workload barrier_atomic_rv64.S --objective "Verify the barrier workload passes." --piton-root ~/openpiton --llm vertex --options triage=raw`,
    )
    .action((flags: RunFlags) => runOnce(flags, ctx));
}

async function runOnce(flags: RunFlags, ctx: CommandContext): Promise<void> {
  const { io } = ctx;
  if (!flags.workload?.length) throw new InputError('give at least one --workload PROGRAM (a gate program)');
  const budget = Object.fromEntries(
    Object.entries({ max_iterations: flags.maxIterations, max_usd: flags.maxUsd, max_wall_s: flags.maxWallS }).filter(
      ([, v]) => v !== undefined,
    ),
  );
  const spec = makeSpec({
    workloads: flags.workload,
    objective: flags.objective,
    core: flags.core,
    target_mesh: flags.mesh,
    budget,
  });
  const options = parseOrThrow(LoopOptionsSchema, flags.options ?? {}, '--options');
  const backend = await makeBackend(llmSpecFromFlags(flags));
  const setup = await resolveCheckouts(
    flags.pitonRoot?.length
      ? { roots: flags.pitonRoot, login_shell: flags.loginShell, env: {} }
      : { offline: flags.offline, login_shell: flags.loginShell, env: {} },
    process.cwd(),
  );
  const runId = newRunId();
  const release = claimCheckouts(setup.roots, runId);
  let outcome;
  try {
    recoverCheckouts(setup.roots);
    mkdirSync(dirname(resolve(flags.db)), { recursive: true });
    const store = await Store.open(flags.db);
    const checkouts = openFor(setup, setup.roots, spec.core, flags.seed);
    if (!flags.json)
      io.out(
        `run ${runId}: ${spec.core} ${spec.target_mesh.join('x')} on ${setup.description}, LLM ${backend.name} (${backend.model})`,
      );
    try {
      outcome = await runMaceLoop({
        spec,
        checkouts,
        store,
        llm: (id) => new RunLlm(backend, { runId: id, seed: flags.seed, store }),
        options,
        workloadsDir: WORKLOADS_DIR,
        runId,
        labels: {
          method: 'mace',
          seed: flags.seed,
          meta: { labels: parseLabels(flags.label ?? []), piton_roots: setup.roots },
        },
        events: flags.json
          ? undefined
          : {
              onPlan: (iteration, tasks) =>
                io.out(
                  `iteration ${iteration}: ${tasks.length} task(s): ${tasks.map((t) => `${t.id} (${t.kind})`).join(', ')}`,
                ),
              onTask: (_iteration, result) =>
                io.out(
                  `  ${result.task.id}: ${result.passed ? 'passed' : 'failed'} (build ${result.build.success ? 'ok' : `failed: ${result.build.failureReason || 'see evidence'}`}` +
                    `${result.runs.length ? `, ${result.runs.map((r) => `${r.test} ${r.verdict ?? 'no verdict'}`).join(', ')}` : ''}) on ${result.checkout}`,
                ),
            },
      });
    } finally {
      await Promise.all(checkouts.map((c) => c.close?.()));
    }
  } finally {
    release();
  }
  if (flags.json) printJson(io, { db: flags.db, ...outcome, iterations: outcome.iterations.length });
  else {
    const s = outcome.summary;
    io.out(`status: ${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ''}`);
    io.out(
      `summary: ${s.successful_tasks} task(s) passed in ${s.iterations} iteration(s), ${s.failures_recovered} failure(s) recovered, ` +
        `${s.execution_time_s.toFixed(1)} s, $${s.compute_usd.toFixed(4)} of LLM calls`,
    );
    io.out(`recorded in ${flags.db}; the whole trace: mace results --db ${flags.db} --run-id ${outcome.runId} --trace`);
  }
  if (outcome.status !== 'passed') ctx.fail();
}
