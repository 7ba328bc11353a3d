/**
 * `mace suite run|status|schema`: run a study from one suite file (resumable, in parallel across
 * checkouts, ending with the report), follow a sweep from another terminal, and print the suite
 * format as JSON Schema for editors.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { InputError } from '../../../mace/errors.ts';
import { analyseFiles, type Analysis } from '../../analysis/analyse.ts';
import { renderMarkdown } from '../../analysis/report.ts';
import { DEFAULT_HOURLY_USD } from '../../analysis/runs.ts';
import { textTable } from '../../format/table.ts';
import { ABLATION_NAMES, FAULT_METHOD_NAMES, METHODS } from '../../methods/index.ts';
import { computeUsd, formatCounts, formatDuration, formatUsd } from '../../runner/counts.ts';
import { estimateJobs } from '../../runner/estimate.ts';
import { liveView, plainView, type SweepView } from '../../runner/progress.ts';
import { describeState, isTodo } from '../../runner/resume.ts';
import { planSweep, runSweep, type SweepOutcome, type SweepPlan } from '../../runner/sweep.ts';
import { sweepReport } from '../../runner/sweeps.ts';
import { suiteJsonSchema } from '../../suite/json-schema.ts';
import { loadSuite, type Suite } from '../../suite/load.ts';
import { withOverrides } from '../../suite/overrides.ts';
import { nonNegativeInt, nonNegativeNumber, positiveInt } from '../args.ts';
import { DB_OPTION_HELP } from '../defaults.ts';
import { inputsFromAnalysis, writeFigures } from '../../figures/index.ts';
import { printJson, type Io } from '../io.ts';
import { addLlmOptions, llmSpecFromFlags, type LlmFlags } from '../llm-flags.ts';
import type { CommandContext } from '../main.ts';

const list = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean),
];
const repeatable = (value: string, previous: string[] = []) => [...previous, value];

/** `k=v` labels; a label with no `=` is refused. */
export function parseLabels(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    const eq = value.indexOf('=');
    if (eq <= 0) throw new InputError(`--label ${value}: expected KEY=VALUE, such as machine=vm1`);
    out[value.slice(0, eq)] = value.slice(eq + 1);
  }
  return out;
}

/** runs/<suite name>.duckdb unless --db says otherwise. */
export const defaultSuiteDb = (suite: Pick<Suite, 'name'>): string => join('runs', `${suite.name}.duckdb`);

interface RunOptions extends Partial<LlmFlags> {
  readonly db?: string;
  readonly methods?: string[];
  readonly tasks?: string[];
  readonly includeUnverified?: boolean;
  readonly repeats?: number;
  readonly onceRepeats?: number;
  readonly seed?: number;
  readonly pitonRoot?: string[];
  readonly offline?: number;
  readonly speed?: number;
  readonly loginShell?: boolean;
  readonly keepCache?: boolean;
  readonly label?: string[];
  readonly dryRun?: boolean;
  readonly report: boolean;
  readonly hourlyUsd: number;
  readonly json?: boolean;
}

export function registerSuite(program: Command, ctx: CommandContext): void {
  const suite = program.command('suite').description('Run a study from a suite file, and follow it');

  const run = suite
    .command('run')
    .description(
      'Run every job of a suite (tasks × methods × repeats) that the database does not already hold, across the checkouts, then print the report',
    )
    .argument('<suite.yaml>', 'the suite file')
    .option('--db <path>', `${DB_OPTION_HELP} (default: runs/<suite name>.duckdb)`)
    .option('--methods <a,b>', 'run only these methods (the suite’s or built-in ones)', list)
    .option('--tasks <a,b>', 'run only these tasks (unverified ones too)', list)
    .option('--include-unverified', 'also run tasks not marked verified: true')
    .addOption(new Option('--repeats <n>', 'runs of each job').argParser(positiveInt))
    .addOption(new Option('--once-repeats <n>', 'runs of each job of a deterministic method').argParser(positiveInt))
    .addOption(new Option('--seed <n>', 'the study seed (job order and job seeds)').argParser(nonNegativeInt))
    .option('--piton-root <dir>', 'use this OpenPiton checkout (repeat for more) instead of the study’s', repeatable)
    .addOption(new Option('--offline <n>', 'use n offline checkouts instead of the study’s').argParser(positiveInt))
    .addOption(new Option('--speed <x>', 'offline checkouts: real seconds × x').argParser(nonNegativeNumber))
    .option('--no-login-shell', 'run sims in a plain bash, skipping the login profile')
    .option('--keep-cache', 'keep built models between jobs (default: every job starts from an empty build cache)')
    .option('--label <k=v>', 'record a label with every run (repeatable)', repeatable)
    .option('--dry-run', 'list every job as done or todo, with the expected time and dollars of what is left')
    .option('--no-report', 'do not print the report at the end')
    .addOption(
      new Option('--hourly-usd <x>', 'dollars per machine hour, for compute cost')
        .argParser(nonNegativeNumber)
        .default(DEFAULT_HOURLY_USD),
    )
    .option('--json', 'print JSON (the dry run’s jobs, or the sweep’s results) instead of text');
  addLlmOptions(run, undefined, { optional: true })
    .addHelpText(
      'after',
      `
Methods: ${[...METHODS.keys()].filter((m) => !ABLATION_NAMES.includes(m) && !FAULT_METHOD_NAMES.includes(m)).join(', ')}
Ablations: ${ABLATION_NAMES.join(', ')}
Faults: ${FAULT_METHOD_NAMES.join(', ')}

Ctrl-C stops starting jobs and lets the running ones finish; a second Ctrl-C cancels them. Running
the same command again runs only what is left (and any job whose definition changed).

Examples:
  $ mace suite run suites/quickstart.yaml
  $ mace suite run suites/table1.yaml --piton-root ~/openpiton --llm vertex --dry-run
  $ mace suite run suites/ablations.yaml --methods mace,no_triage --repeats 5 --label machine=vm1`,
    )
    .action((file: string, options: RunOptions) => runSuite(file, options, ctx));

  suite
    .command('status')
    .description('Show where the latest sweep in a database stands (from another terminal while it runs)')
    .argument('[suite.yaml]', 'the suite file, for its default database runs/<name>.duckdb')
    .option('--db <path>', DB_OPTION_HELP)
    .option('--sweep <id>', 'this sweep instead of the latest one')
    .option('--json', 'print JSON instead of text')
    .addHelpText(
      'after',
      `
Examples:
  $ mace suite status --db runs/quickstart.duckdb
  $ mace suite status suites/quickstart.yaml --json`,
    )
    .action((file: string | undefined, options: { db?: string; sweep?: string; json?: boolean }) =>
      status(file, options, ctx),
    );

  suite
    .command('schema')
    .description('Print the suite format as JSON Schema (for editor completion and checking)')
    .option('--out <file>', 'write it to this file instead')
    .addHelpText(
      'after',
      `
Examples:
  $ mace suite schema --out suites/suite.schema.json
  (then start a suite file with: # yaml-language-server: $schema=suite.schema.json)`,
    )
    .action((options: { out?: string }) => {
      const text = `${JSON.stringify(suiteJsonSchema(), null, 2)}\n`;
      if (options.out) writeFileSync(options.out, text);
      else ctx.io.out(text);
    });
}

async function runSuite(file: string, options: RunOptions, ctx: CommandContext): Promise<void> {
  const { io } = ctx;
  const loaded = loadSuite(file);
  const suite = withOverrides(loaded, {
    methods: options.methods,
    tasks: options.tasks,
    includeUnverified: options.includeUnverified,
    repeats: options.repeats,
    onceRepeats: options.onceRepeats,
    seed: options.seed,
    llm: options.llm ? llmSpecFromFlags(options as LlmFlags) : undefined,
    roots: options.pitonRoot?.map((root) => resolve(root)),
    offline: options.offline,
    speed: options.speed,
    loginShell: options.loginShell === false ? false : undefined,
  });
  const db = options.db ?? defaultSuiteDb(suite);
  const settings = { db, keepCache: options.keepCache, labels: parseLabels(options.label ?? []) };
  const plan = await planSweep(suite, settings);
  if (options.dryRun) {
    try {
      await dryRun(plan, db, options, io);
    } finally {
      plan.release();
    }
    return;
  }

  mkdirSync(dirname(resolve(db)), { recursive: true });
  const view: SweepView = io.isTTY && !options.json ? liveView(db) : plainView(io, db);
  const stop = new AbortController();
  const cancel = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (signal === 'SIGINT' && !stop.signal.aborted) {
      stop.abort();
      view.note('Ctrl-C: no new job starts; the running ones finish (Ctrl-C again cancels them)');
    } else if (!cancel.signal.aborted) {
      cancel.abort();
      view.note(`${signal}: cancelling the running jobs; their runs are recorded as errors and run again on resume`);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let outcome: SweepOutcome;
  try {
    outcome = await runSweep(plan, settings, { stop: stop.signal, cancel: cancel.signal, events: view });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    view.close();
  }

  const errors = outcome.results.filter((r) => r.result.status === 'error').length;
  if (options.json)
    printJson(io, {
      sweep_id: outcome.sweepId,
      db,
      skipped: outcome.skipped,
      unstarted: outcome.unstarted,
      stopped: outcome.stopped,
      counts: outcome.counts,
      results: outcome.results.map(({ job, result }) => ({
        task: job.task.id,
        method: job.method.name,
        repeat: job.repeat,
        seed: job.seed,
        key: job.key,
        run_id: result.runId,
        status: result.status,
        reason: result.reason ?? null,
        wall_s: result.wallS,
        llm_usd: result.llmUsd,
        machine_s: result.machineS,
      })),
    });
  else {
    io.out(
      `--- ran ${outcome.results.length}, skipped ${outcome.skipped} already done` +
        `${outcome.unstarted ? `, ${outcome.unstarted} not started (stopped)` : ''}, ${errors} error${errors === 1 ? '' : 's'}; ` +
        `${formatCounts(outcome.counts, options.hourlyUsd)}; db=${db}`,
    );
  }
  if (options.report && !options.json) {
    const analysis = await analyseFiles([db], { hourlyUsd: options.hourlyUsd });
    if (analysis.runs.length) io.out(`\n${renderMarkdown(analysis)}`);
    await writeSuiteFigures(db, analysis, io);
  }
  if (errors || outcome.stopped)
    ctx.fail(
      outcome.stopped
        ? `stopped before every job ran; run the same command again to finish the rest`
        : `${errors} job(s) ended in error; run the same command again to retry them`,
    );
}

/** Figures after the report, from the same analysis, in `<db without .duckdb>-figures/` beside the database. */
async function writeSuiteFigures(db: string, analysis: Analysis, io: Io): Promise<void> {
  if (!analysis.runs.length) return;
  const out = `${db.replace(/\.duckdb$/, '')}-figures`;
  const manifest = await writeFigures(await inputsFromAnalysis(analysis), { out, formats: ['svg', 'png'] });
  io.out(`\nfigures: ${manifest.figures.length} written to ${out}/ (SVG and PNG, each with its spec and data)`);
}

async function dryRun(plan: SweepPlan, db: string, options: RunOptions, io: Io): Promise<void> {
  const estimate = await estimateJobs(db, plan.todo, options.hourlyUsd);
  if (options.json) {
    printJson(io, {
      suite: plan.suite.name,
      db,
      jobs: plan.jobs.map((j) => ({
        task: j.task.id,
        method: j.method.name,
        repeat: j.repeat,
        seed: j.seed,
        key: j.key,
        checkouts: j.checkouts,
        todo: isTodo(j.state),
        state: j.state,
      })),
      estimate,
    });
    return;
  }
  io.out(
    textTable(
      plan.jobs.map((j) => ({
        state: isTodo(j.state) ? 'todo' : 'done',
        task: j.task.id,
        method: j.method.name,
        repeat: j.repeat,
        why: describeState(j.state),
      })),
      [{ key: 'state' }, { key: 'task' }, { key: 'method' }, { key: 'repeat' }, { key: 'why' }],
    ),
  );
  io.out(`\n${plan.todo.length} of ${plan.jobs.length} jobs to run on ${plan.setup.description}`);
  if (estimate.known) {
    const parallel = estimate.jobS / plan.setup.roots.length;
    io.out(
      `expected for ${estimate.known} of them (medians of earlier runs of the same task and method): ` +
        `${formatDuration(estimate.jobS)} of job time (about ${formatDuration(parallel)} on ${plan.setup.roots.length} checkouts), ` +
        `${formatUsd(estimate.llmUsd)} LLM + ${formatUsd(estimate.computeUsd)} compute`,
    );
  }
  if (estimate.unknown)
    io.out(`${estimate.unknown} job(s) have no earlier run of their task and method to estimate from`);
}

async function status(
  file: string | undefined,
  options: { db?: string; sweep?: string; json?: boolean },
  ctx: CommandContext,
): Promise<void> {
  const db = options.db ?? (file ? defaultSuiteDb(loadSuite(file)) : undefined);
  if (!db) throw new InputError('give --db PATH (or the suite file, for its default database)');
  const report = await sweepReport(db, options.sweep);
  if (options.json) {
    printJson(ctx.io, report);
    return;
  }
  const { sweep, counts } = report;
  const state =
    report.state === 'running'
      ? `running (pid ${sweep.pid} on ${sweep.host})`
      : report.state === 'died'
        ? `died (pid ${sweep.pid} is gone); run the suite again to finish it`
        : report.state;
  ctx.io.out(
    `sweep ${sweep.sweep_id} of suite ${sweep.suite}${sweep.suite_file ? ` (${sweep.suite_file})` : ''}, started ${sweep.started_at.toISOString()}: ${state}`,
  );
  ctx.io.out(formatCounts(counts));
  ctx.io.out(
    `${sweep.jobs} jobs in the suite, ${sweep.jobs - sweep.todo} already done before this sweep; ${sweep.checkouts} checkout(s); compute ${formatUsd(computeUsd(counts))}`,
  );
  if (report.running.length)
    ctx.io.out(
      `\nrunning:\n${textTable(
        report.running.map((r) => ({ ...r, elapsed: formatDuration(r.elapsed_s) })),
        [{ key: 'task' }, { key: 'method' }, { key: 'repeat' }, { key: 'run_id' }, { key: 'elapsed' }],
      )}`,
    );
}
