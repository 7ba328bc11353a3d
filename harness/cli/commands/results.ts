import { Option, type Command } from 'commander';
import { InputError } from '../../../mace/errors.ts';
import {
  failureTaxonomy,
  getRun,
  listRuns,
  runEvaluations,
  runSummary,
  runTrace,
} from '../../../mace/store/readers.ts';
import { describeDesign, designOf } from '../../../mace/codesign/design.ts';
import type { CacheName, Network } from '../../../mace/openpiton/geometry.ts';
import { Store } from '../../../mace/store/store.ts';
import { textTable } from '../../format/table.ts';
import { positiveInt } from '../args.ts';
import { DB_OPTION_HELP, DEFAULT_DB } from '../defaults.ts';
import { printJson } from '../io.ts';
import type { CommandContext } from '../main.ts';
import { renderTrace } from '../trace.ts';

interface ResultsOptions {
  readonly db: string;
  readonly runId?: string;
  readonly trace?: boolean;
  readonly limit?: number;
  readonly json?: boolean;
}

export function registerResults(program: Command, ctx: CommandContext): void {
  program
    .command('results')
    .description('List the runs in a results database, or show one run (its summary, failures, or full trace)')
    .option('--db <path>', DB_OPTION_HELP, DEFAULT_DB)
    .option('--run-id <id>', 'show this run: its summary and failure taxonomy')
    .option(
      '--trace',
      'with --run-id: the iteration → task → failure tree, with plan checks, probes and the post-mortem',
    )
    .addOption(new Option('--limit <n>', 'list at most this many runs, newest first').argParser(positiveInt))
    .option('--json', 'print JSON instead of text')
    .addHelpText(
      'after',
      `
Examples:
  $ mace results --db runs/quickstart.duckdb
  $ mace results --db runs/quickstart.duckdb --run-id 3f9c2a1b7d04 --trace
  $ mace results --run-id 3f9c2a1b7d04 --json | jq .summary`,
    )
    .action((options: ResultsOptions) => showResults(options, ctx));
}

async function showResults(options: ResultsOptions, ctx: CommandContext): Promise<void> {
  if (options.trace && !options.runId)
    throw new InputError('--trace needs --run-id ID (run `mace results` to list the run ids)');
  const store = await Store.openForRead(options.db);
  const { io } = ctx;

  if (options.runId) {
    const run = await getRun(store, options.runId);
    if (!run)
      throw new InputError(
        `no run ${options.runId} in ${options.db} (run \`mace results --db ${options.db}\` to list them)`,
      );
    if (options.trace) {
      const trace = (await runTrace(store, options.runId))!;
      if (options.json) printJson(io, trace);
      else io.out(renderTrace(trace));
      return;
    }
    const [summary, taxonomy, evaluations] = await Promise.all([
      runSummary(store, options.runId),
      failureTaxonomy(store, options.runId),
      runEvaluations(store, options.runId),
    ]);
    if (options.json) {
      printJson(io, { run, summary, failure_taxonomy: taxonomy, evaluations });
      return;
    }
    io.out(`run ${run.run_id}  ${run.core} ${run.x_tiles}x${run.y_tiles}  ${run.status}`);
    io.out(`objective: ${run.objective}`);
    io.out(
      textTable(
        [summary!],
        [
          { key: 'successful_tasks', title: 'passed tasks' },
          { key: 'iterations' },
          { key: 'failures_recovered', title: 'recovered' },
          { key: 'execution_time_s', title: 'time (s)', decimals: 1 },
          { key: 'compute_usd', title: 'usd', decimals: 4 },
        ],
      ),
    );
    io.out(
      taxonomy.length
        ? `\nfailures by diagnosis:\n${textTable(taxonomy, [{ key: 'diagnosis' }, { key: 'count' }, { key: 'recovered' }])}`
        : '\nno failures recorded',
    );
    if (evaluations.length) io.out(`\nco-design proposals:\n${renderEvaluations(evaluations)}`);
    return;
  }

  const runs = await listRuns(store, { limit: options.limit });
  if (options.json) {
    printJson(io, runs);
    return;
  }
  if (!runs.length) {
    io.out(`no runs in ${options.db}`);
    return;
  }
  const rows = runs.map((r) => ({
    run_id: r.run_id,
    method: r.method,
    task: r.task,
    core: r.core,
    mesh: `${r.x_tiles}x${r.y_tiles}`,
    status: r.status,
    tasks: r.successful_tasks,
    iterations: r.iterations,
    wall_s: r.execution_time_s,
    usd: r.compute_usd,
  }));
  io.out(
    textTable(rows, [
      { key: 'run_id' },
      { key: 'method' },
      { key: 'task' },
      { key: 'core' },
      { key: 'mesh' },
      { key: 'status' },
      { key: 'tasks', title: 'passed tasks' },
      { key: 'iterations' },
      { key: 'wall_s', decimals: 1 },
      { key: 'usd', decimals: 4 },
    ]),
  );
  const passed = runs.filter((r) => r.status === 'passed').length;
  const time = runs.reduce((sum, r) => sum + r.execution_time_s, 0);
  const usd = runs.reduce((sum, r) => sum + r.compute_usd, 0);
  io.out(
    `\n${passed} of ${runs.length} run(s) passed; ${time.toFixed(1)} s of execution; $${usd.toFixed(4)} of LLM calls`,
  );
}

function renderEvaluations(rows: Awaited<ReturnType<typeof runEvaluations>>): string {
  return textTable(
    rows.map((e) => ({
      idx: e.idx,
      round: e.round,
      design: describeDesign(
        designOf(e.design.caches as Partial<Record<CacheName, [number, number]>>, e.design.network as Network),
      ),
      outcome: e.simulated
        ? e.feasible
          ? 'feasible'
          : e.passed
            ? 'passed, over budget'
            : 'failed'
        : `rejected: ${e.rejected}`,
      finish: e.sim_time,
      area_um2: e.area_um2,
    })),
    [
      { key: 'idx' },
      { key: 'round' },
      { key: 'design' },
      { key: 'outcome' },
      { key: 'finish' },
      { key: 'area_um2', decimals: 0 },
    ],
  );
}
