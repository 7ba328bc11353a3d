import { InvalidArgumentError, Option, type Command } from 'commander';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../../mace/errors.ts';
import {
  calibrate,
  checkoutSpeed,
  defaultOfflineRoots,
  initOfflineCheckout,
  loadCalibrationTable,
  measureOverhead,
  MIN_SCALED_SECONDS,
  OfflineCheckoutError,
  summarise,
  type CalibrationSummary,
  type RowReport,
} from '../../../mace/openpiton/offline/index.ts';
import { Workspace } from '../../../mace/openpiton/workspace.ts';
import { textTable } from '../../format/table.ts';
import { CommandFailed, printJson } from '../io.ts';
import type { CommandContext } from '../main.ts';

interface InitOptions {
  readonly speed?: number;
  readonly flakeRate?: number;
  readonly seed?: number;
  readonly force?: boolean;
  readonly json?: boolean;
}

const number = (what: string) => (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`expected ${what}.`);
  return n;
};

export function registerOffline(program: Command, ctx: CommandContext): void {
  const offline = program
    .command('offline')
    .description('The offline OpenPiton: a checkout whose sims is a calibrated model of OpenPiton (not a simulation)');

  offline
    .command('init')
    .description('Create an offline checkout in DIR (laid out like OpenPiton, with the model sims on PATH)')
    .argument('<dir>', 'where to create it (must be empty unless --force)')
    .addOption(
      new Option('--speed <factor>', 'real seconds are multiplied by this (1 replays real time, 0 answers at once)')
        .argParser(number('a number >= 0'))
        .default(0.01),
    )
    .addOption(
      new Option('--flake-rate <rate>', 'probability that a build or run fails for no configuration reason')
        .argParser(number('a number between 0 and 1'))
        .default(0),
    )
    .addOption(new Option('--seed <n>', 'seed of the flake draws').argParser(number('an integer')).default(0))
    .option('--force', 'replace DIR if it is not empty')
    .option('--json', 'print JSON instead of text')
    .addHelpText(
      'after',
      `
Examples:
  $ mace offline init /tmp/piton
  $ mace offline init /tmp/piton --speed 1 --force          # replay real build and run times
  $ mace offline init /tmp/flaky --flake-rate 0.2 --seed 7  # seeded failures for testing retries`,
    )
    .action((dir: string, options: InitOptions) => init(dir, options, ctx));

  offline
    .command('calibrate')
    .description(
      'Replay every row of the calibration table (real OpenPiton builds and runs) through a checkout with the adapter, and compare',
    )
    .option('--piton-root <dir>', 'the checkout to replay through (default: the offline checkout the loop uses)')
    .option('--rows <pattern>', 'only the rows whose id matches this regular expression')
    .option('--json', 'print JSON instead of text')
    .addHelpText(
      'after',
      `
Every row's verdict and failure reason must agree with the real measurement; the simulated times and
the time ratios (observed seconds over real seconds x the checkout's speed) show how close the costs are.
Exits 1 when a row disagrees.

Examples:
  $ mace offline calibrate
  $ mace offline calibrate --rows '^p22-' --json
  $ mace offline calibrate --piton-root ~/openpiton    # a real checkout: extend the table from it`,
    )
    .action((options: CalibrateOptions) => runCalibration(options, ctx));
}

interface CalibrateOptions {
  readonly pitonRoot?: string;
  readonly rows?: string;
  readonly json?: boolean;
}

async function runCalibration(options: CalibrateOptions, ctx: CommandContext): Promise<void> {
  const root = options.pitonRoot ? resolve(options.pitonRoot) : (await defaultOfflineRoots(1))[0]!;
  if (!existsSync(join(root, 'piton', 'piton_settings.bash')))
    throw new InputError(`--piton-root ${root}: no piton/piton_settings.bash there; give an OpenPiton checkout`);
  let pattern: RegExp | undefined;
  try {
    pattern = options.rows ? new RegExp(options.rows) : undefined;
  } catch (error) {
    throw new InputError(`--rows ${JSON.stringify(options.rows)}: ${(error as Error).message}`);
  }
  const rows = loadCalibrationTable().filter((row) => !pattern || pattern.test(row.id));
  if (!rows.length) throw new InputError(`--rows ${JSON.stringify(options.rows)} matches no calibration row`);
  const speed = checkoutSpeed(root);
  const workspace = new Workspace(root);
  const overheadS = await measureOverhead(workspace, rows[0]!);
  const reports = await calibrate(workspace, rows, {
    speed,
    overheadS,
    onRow: options.json
      ? undefined
      : (r, i, n) => ctx.io.out(`[${String(i + 1).padStart(String(n).length)}/${n}] ${rowLine(r)}`),
  });
  const summary = summarise(reports);
  if (options.json) printJson(ctx.io, { checkout: root, speed, overheadS, summary, rows: reports });
  else {
    ctx.io.out('');
    ctx.io.out(
      textTable(reports, [
        { key: 'id' },
        { key: 'outcome' },
        { key: 'expected', title: 'real' },
        { key: 'observed' },
        { key: 'simTime', title: 'sim time (real / observed)', format: (v) => simTimes(v as RowReport['simTime']) },
        { key: 'buildRatio', title: 'build x', decimals: 2 },
        { key: 'runRatio', title: 'run x', decimals: 2 },
      ]),
    );
    ctx.io.out('');
    ctx.io.out(summaryText(summary, root, speed, overheadS));
  }
  if (summary.disagree)
    throw new CommandFailed(`${summary.disagree} calibration row(s) disagree with the real measurements`);
}

const simTimes = (t: RowReport['simTime']): string => (t ? `${t.real} / ${t.observed ?? '-'}` : '-');

function rowLine(r: RowReport): string {
  const times = r.simTime ? ` (${simTimes(r.simTime)})` : '';
  return `${r.id}  ${r.outcome}  real ${r.expected}, observed ${r.observed}${times}${r.outcome === 'agree' ? '' : `: ${r.why}`}`;
}

function summaryText(s: CalibrationSummary, root: string, speed: number, overheadS: number): string {
  const ratio = (label: string, r: CalibrationSummary['buildRatio']) =>
    r
      ? `${label} time ratio: median ${r.median.toFixed(2)} (${r.min.toFixed(2)}-${r.max.toFixed(2)}, ${r.n} rows)`
      : `${label} time ratio: -`;
  return [
    `${s.rows} rows through ${root} (speed ${speed}): ${s.agree} agree, ${s.disagree} disagree, ${s.refused} refused by the adapter before any build (by design)`,
    `simulated times: ${s.exactSimTimes} of ${s.simTimes} exactly as measured`,
    `time ratios: observed seconds less ${overheadS.toFixed(2)} s per call (a sims call that does nothing), over real seconds x ${speed},` +
      ` where that is at least ${MIN_SCALED_SECONDS} s (a checkout made with --speed 1 gives every row one)`,
    ratio('build', s.buildRatio),
    ratio('run', s.runRatio),
  ].join('\n');
}

async function init(dir: string, options: InitOptions, ctx: CommandContext): Promise<void> {
  try {
    const checkout = await initOfflineCheckout(dir, {
      ...(options.speed !== undefined ? { speed: options.speed } : {}),
      ...(options.flakeRate !== undefined ? { flakeRate: options.flakeRate } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      force: Boolean(options.force),
    });
    if (options.json) return printJson(ctx.io, checkout);
    const { speed, flakeRate, seed } = checkout.settings;
    ctx.io.out(
      [
        `offline checkout at ${checkout.root} (mace offline model ${checkout.modelVersion})`,
        `speed ${speed}, flake rate ${flakeRate}, seed ${seed}`,
        'Its sims is a calibrated model of OpenPiton, not a simulation: report its results as model output.',
        `Use it with --piton-root ${checkout.root}`,
      ].join('\n'),
    );
  } catch (error) {
    if (error instanceof OfflineCheckoutError) throw new InputError(error.message);
    throw error;
  }
}
