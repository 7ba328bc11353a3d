/**
 * The offline checkout's `sims`: the same command line, output, files and exit codes as OpenPiton's
 * sims,2.0 driving Verilator 5.006, from a calibrated model instead of a simulation. Bundled into
 * one file at `mace offline init` (piton/tools/bin/mace_offline_sims.cjs) so each call is a plain
 * `node` start.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { effectiveCaches, type Design, type ModelCore } from '../model/design.ts';
import { vltBuild } from './build.ts';
import { banner, dateLine, DIE_LINES } from './formats.ts';
import type { Invocation } from './invocation.ts';
import { isDiagName, parseSimsArgs, type SimsOptions } from './options.ts';
import { assembleDiag, vltRun } from './run.ts';
import { die, loadSettings, Output, reportDie, SimsDie } from './runtime.ts';
import { verilatorCoverage } from './tools.ts';
import { unitBuild, unitInvocationOptions, unitRun } from './unit.ts';

/** The file beside the bundle naming the model version it was built from. */
export const MODEL_INFO_FILE = 'mace_offline_model.json';

const SIM_HOMES: Record<string, string> = {
  vcs: 'VCS_HOME',
  ncv: 'NCV_HOME',
  icv: 'ICARUS_HOME',
  msm: 'MODELSIM_HOME',
  riv: 'RIVIERA_HOME',
};

export function main(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string, toolsBin: string): number {
  if (argv[0] === '--mace-tool=verilator_coverage') return verilatorCoverage(argv.slice(1));
  const opts = parseSimsArgs(argv);
  if (opts.flags.has('version')) {
    process.stdout.write('sims version: 2.0\n');
    return 0;
  }
  const early = new Output(undefined);
  const dvRoot = opts.strings.get('dv_root') || env.DV_ROOT || '';
  try {
    if (!dvRoot) throw die('could not initialize dv_root', DIE_LINES.noDvRoot);
    if (opts.flags.has('ariane') && (opts.flags.has('pico') || opts.flags.has('pico_het')))
      throw die('-ariane and -pico/-pico_het cannot be set simultaneously', DIE_LINES.conflictingCores);
    if (opts.strings.has('generic_core') && (opts.flags.has('ariane') || opts.flags.has('pico')))
      throw die('-generic_core cannot be combined with -ariane or -pico', DIE_LINES.conflictingCores);
    const modelDir = opts.strings.get('model_dir') || env.MODEL_DIR || '';
    if (!modelDir) throw die('could not initialize model_dir', DIE_LINES.noModelDir);
    return simsMain(argv, opts, env, cwd, dvRoot, modelDir, toolsBin);
  } catch (error) {
    if (!(error instanceof SimsDie)) throw error;
    reportDie(early, error, dvRoot || '.', cwd);
    return 1;
  }
}

function simsMain(
  argv: readonly string[],
  opts: SimsOptions,
  env: NodeJS.ProcessEnv,
  cwd: string,
  dvRoot: string,
  modelDir: string,
  toolsBin: string,
): number {
  const simslog = !opts.negated.has('simslog');
  const out = new Output(simslog ? join(cwd, opts.strings.get('simslog_name') || 'sims.log') : undefined);
  try {
    out.lines(banner(argv, dvRoot, modelDir, modelNote(toolsBin)));
    const sys = opts.strings.get('sys') ?? '';
    if (!sys) throw die('-sys argument not defined', DIE_LINES.noSys);
    const call: Call = { argv, env, cwd, dvRoot, modelDir, toolsBin, out };
    if (sys !== 'manycore') return unitSystem(call, sys);
    const core = coreOf(opts);
    out.line(`sims: using config file ${dvRoot}/tools/src/sims/sims.config (-DFLIST_${flistTag(core)})`);
    const diagNames = opts.rest.filter(isDiagName);
    const unprocessed = opts.rest.find((arg) => !isDiagName(arg));
    if (unprocessed !== undefined) throw die(`Unprocessed argument: ${unprocessed}`, DIE_LINES.unprocessed);
    const diagName = diagNames.at(-1) ?? opts.strings.get('asm_diag_name');
    if (diagName && opts.flags.has('precompiled') && core !== 'sparc')
      out.line(`sims: looking for precompiled RISCV binary ${diagName.replace(/\.[^.]*$/, '')}`);
    out.line('sims: using random seed 0');
    const requested = designFromOptions(opts, core, out);
    out.line('sims: Setting UART_DIV_LATCH to 0xb');

    const invocation = invocationOf(call, opts, 'manycore');
    checkSimHomes(opts, env);
    if (opts.flags.has('vlt_build') && !opts.negated.has('build')) vltBuild(invocation, requested);
    const diag = diagName ? assembleDiag(invocation, requested, diagName) : undefined;
    if (opts.flags.has('vlt_run') && diag) vltRun(invocation, diag);
    out.line(`sims: stop_time ${dateLine()}`);
    return 0;
  } catch (error) {
    if (!(error instanceof SimsDie)) throw error;
    reportDie(out, error, dvRoot, cwd);
    return 1;
  } finally {
    out.close();
  }
}

/** What every sims call starts from, before its options are known. */
interface Call {
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly dvRoot: string;
  readonly modelDir: string;
  readonly toolsBin: string;
  readonly out: Output;
}

/** The call with its options, its model at $MODEL_DIR/<model>/<build_id>, and the checkout's settings. */
function invocationOf(call: Call, opts: SimsOptions, model: string): Invocation {
  return {
    ...call,
    opts,
    pitonRoot: dirname(call.dvRoot),
    modelPath: join(call.modelDir, model, opts.strings.get('build_id') || 'rel-0.1'),
    settings: loadSettings(call.toolsBin, call.env),
  };
}

/** A unit-test environment's call: its sims.config block's options, then the build and the run. */
function unitSystem(call: Call, sys: string): number {
  const { out, dvRoot, env } = call;
  out.line(`sims: using config file ${dvRoot}/tools/src/sims/sims.config ()`);
  const opts = unitInvocationOptions(dvRoot, sys, call.argv);
  const unprocessed = opts.rest.find((arg) => !isDiagName(arg));
  if (unprocessed !== undefined) throw die(`Unprocessed argument: ${unprocessed}`, DIE_LINES.unprocessed);
  out.line('sims: using random seed 0');
  const invocation = invocationOf(call, opts, opts.strings.get('model')!);
  checkSimHomes(opts, env);
  if (opts.flags.has('vlt_build') && !opts.negated.has('build')) unitBuild(invocation, sys);
  if (opts.flags.has('vlt_run')) unitRun(invocation);
  out.line(`sims: stop_time ${dateLine()}`);
  return 0;
}

/** The other simulators need their installation; sims dies without it. */
function checkSimHomes(opts: SimsOptions, env: NodeJS.ProcessEnv): void {
  for (const [sim, home] of Object.entries(SIM_HOMES))
    if ((opts.flags.has(`${sim}_build`) || opts.flags.has(`${sim}_run`)) && !env[home])
      throw die(`${home} not defined.`, DIE_LINES.simHome);
}

function modelNote(toolsBin: string): string {
  let version = 'unknown';
  try {
    version = (JSON.parse(readFileSync(join(toolsBin, MODEL_INFO_FILE), 'utf8')) as { version: string }).version;
  } catch {
    // A bundle run outside a checkout still identifies itself as the model.
  }
  return `mace offline model ${version}: a calibrated model of OpenPiton, not a simulation`;
}

function coreOf(opts: SimsOptions): ModelCore {
  if (opts.strings.has('generic_core')) return 'generic';
  if (opts.flags.has('ariane')) return 'ariane';
  if (opts.flags.has('pico')) return 'pico';
  return 'sparc';
}

const flistTag = (core: ModelCore): string =>
  core === 'ariane' ? 'ARIANE' : core === 'pico' || core === 'generic' ? 'PICO' : 'OST1';

/** The design the flags ask for, with the defines sims and manycore.config add. */
function designFromOptions(
  opts: SimsOptions,
  core: ModelCore,
  out: Output,
): Omit<Design, 'finishMaskBits' | 'coreInstantiated' | 'defect'> {
  const network = opts.strings.get('network_config');
  if (network === undefined) out.line('sims: network_config not specified, assuming 2dmesh configuration');
  else if (network !== 'xbar_config' && network !== '2dmesh_config')
    throw die('network_config can only be xbar_config or 2dmesh_config', DIE_LINES.badNetwork);
  const x = Number(opts.strings.get('x_tiles') || 0);
  const y = Number(opts.strings.get('y_tiles') || 0);
  if (x > 256) throw die('x_tiles can be at most 256', DIE_LINES.tooManyTiles);
  if (y > 256) throw die('y_tiles can be at most 256', DIE_LINES.tooManyTiles + 1);
  if (!x || !y)
    out.lines([
      'sims: x_tiles and y_tiles not defined, assuming x dimension is <= 8',
      'sims: num_tile not defined, assuming just one tile',
    ]);
  const [xTiles, yTiles] = x && y ? [x, y] : [1, 1];
  const requested = Object.fromEntries(
    (['l1i', 'l1d', 'l15', 'l2'] as const).map((c) => [
      c,
      [
        Number(opts.strings.get(`config_${c}_size`)) || 0,
        Number(opts.strings.get(`config_${c}_associativity`)) || 0,
      ] as const,
    ]),
  );
  const coreDefines: Record<ModelCore, string[]> = {
    pico: ['PITON_PICO'],
    generic: ['PITON_PICO'],
    ariane: [
      'PITON_ARIANE',
      'PITON_RV64_PLATFORM',
      'PITON_RV64_DEBUGUNIT',
      'PITON_RV64_CLINT',
      'PITON_RV64_PLIC',
      'WT_DCACHE',
    ],
    sparc: ['PITON_OST1'],
  };
  const tileTag = core === 'ariane' ? 'RTL_ARIANE' : core === 'sparc' ? 'RTL_SPARC' : 'RTL_PICO';
  const defines = [
    ...coreDefines[core],
    'NO_SCAN',
    ...(opts.lists.get('config_rtl') ?? []),
    'USE_FAKE_PLL_AND_CLKMUX',
    'USE_FAKE_IOS',
    ...Array.from({ length: xTiles * yTiles }, (_, i) => [`RTL_TILE${i}`, `${tileTag}${i}`]).flat(),
  ];
  return {
    core,
    ...(core === 'generic' ? { genericCore: opts.strings.get('generic_core')! } : {}),
    xTiles,
    yTiles,
    network: network === 'xbar_config' ? 'xbar_config' : '2dmesh_config',
    defines,
    caches: effectiveCaches(requested),
    buildArgs: ['-DSYNC_MUX', ...(opts.lists.get('vlt_build_args') ?? [])],
  };
}
