import { existsSync, readFileSync, statSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { InputError } from '../../../mace/errors.ts';
import {
  COVERAGE_LINE_FLAG,
  PitonConfigError,
  buildId,
  configKey,
  makeConfig,
  simsFlags,
  wayViolations,
  type PitonConfigInput,
} from '../../../mace/openpiton/config.ts';
import {
  CACHE_NAMES,
  CORES,
  DEFINE_RE,
  NETWORKS,
  type CacheGeometry,
  type CacheName,
} from '../../../mace/openpiton/geometry.ts';
import { describeLog, tileList, type LogReport } from '../../../mace/openpiton/logreport.ts';
import { printJson } from '../io.ts';
import { registerInspectReply } from './inspect-reply.ts';
import type { CommandContext } from '../main.ts';

export function registerInspect(program: Command, ctx: CommandContext): void {
  const inspect = program
    .command('inspect')
    .description("Read OpenPiton logs and configurations the way the adapter does, and model replies the way the loop does");

  inspect
    .command('log')
    .description('Say what a sims build output, sims run output, sim.log, status.log or regression summary reports')
    .argument('<file...>', 'log files')
    .option('--json', 'print JSON instead of text')
    .addHelpText(
      'after',
      `
Prints the verdict (read fail-closed: any FAIL line decides), the simulated finish time, the failure
reason and error lines of a build, which tiles hit which trap, and why sims died.

Examples:
  $ mace inspect log build/manycore/mace_c7b769a7b19e/runs/addi.S-1795983545389-53f87816/sim.log
  $ mace inspect log build/manycore/mace_c7b769a7b19e/mace_build.stdout.log --json`,
    )
    .action((files: string[], options: { json?: boolean }) => inspectLogs(files, options, ctx));

  inspect
    .command('config')
    .description('Print the sims flags and build id of a configuration')
    .addOption(new Option('--core <core>', 'the core').choices(CORES).default('ariane'))
    .option('--mesh <XxY>', 'tiles across and down, e.g. 2x2', '1x1')
    .option('--define <name...>', 'an RTL define added to MINIMAL_MONITORING (repeatable)')
    .option('--cache <name=size,ways...>', `a cache geometry, e.g. l1d=16384,4 (${CACHE_NAMES.join(', ')}; repeatable)`)
    .addOption(new Option('--network <network>', 'the interconnect').choices(NETWORKS))
    .option('--coverage', 'add Verilator line coverage to the build')
    .option('--json', 'print JSON instead of text')
    .addHelpText(
      'after',
      `
Examples:
  $ mace inspect config
  $ mace inspect config --core pico --mesh 2x2 --define CONFIG_DISABLE_BIST_CLEAR
  $ mace inspect config --core ariane --cache l1d=16384,8 --json`,
    )
    .action((options: ConfigOptions) => inspectConfig(options, ctx));

  registerInspectReply(inspect, ctx);
}

function inspectLogs(files: readonly string[], options: { json?: boolean }, ctx: CommandContext): void {
  const missing = files.filter((f) => !existsSync(f) || !statSync(f).isFile());
  if (missing.length) throw new InputError(`no such log file: ${missing.join(', ')}`);
  const reports = files.map((file) => ({ file, ...describeLog(readFileSync(file, 'utf8')) }));
  if (options.json) printJson(ctx.io, reports);
  else ctx.io.out(reports.map((r) => renderLog(r.file, r)).join('\n\n'));
}

function renderLog(file: string, r: LogReport): string {
  const rows: [string, string][] = [['says', r.summary]];
  if (r.verdict) rows.push(['verdict', `${r.verdict}${r.failReason ? ` (${r.failReason})` : ''}`]);
  if (r.finishTime !== null) rows.push(['finish time', String(r.finishTime)]);
  if (r.maxCycles !== null) rows.push(['max cycles', String(r.maxCycles)]);
  if (r.status) rows.push(['status', `${r.status.status} (diag ${r.status.name})`]);
  if (r.goodTrapTiles.length) rows.push(['good trap', tileList(r.goodTrapTiles)]);
  if (r.badTrapTiles.length) rows.push(['bad trap', tileList(r.badTrapTiles)]);
  if (r.timeoutTiles.length) rows.push(['timeout on', tileList(r.timeoutTiles)]);
  if (r.build) {
    const outcome = r.build.failureReason
      ? `failed: ${r.build.failureReason}`
      : r.build.linked
        ? `linked ${r.build.linked}`
        : 'no failure found';
    rows.push(['build', outcome]);
    if (r.build.modelDir) rows.push(['model dir', r.build.modelDir]);
    if (r.build.pinNotFound)
      rows.push(['note', '%Error-PINNOTFOUND: a testbench connects a port the module does not have']);
    if (r.build.errorCount)
      rows.push([
        'errors',
        `${r.build.errorCount} line(s)${r.build.errorCount > r.build.errors.length ? `, first ${r.build.errors.length}` : ''}:\n${r.build.errors.map((e) => `    ${e}`).join('\n')}`,
      ]);
  }
  for (const message of r.simsDied) rows.push(['sims died', message]);
  if (r.regression)
    rows.push([
      'regression',
      Object.entries(r.regression.counts)
        .filter(([, n]) => n > 0)
        .map(([label, n]) => `${label} ${n}`)
        .join(', ') || 'no counts',
    ]);
  if (r.coverage) rows.push(['coverage', `${r.coverage.hit}/${r.coverage.total} (${r.coverage.percent}%)`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return [file, ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`)].join('\n');
}

interface ConfigOptions {
  readonly core: (typeof CORES)[number];
  readonly mesh: string;
  readonly define?: string[];
  readonly cache?: string[];
  readonly network?: (typeof NETWORKS)[number];
  readonly coverage?: boolean;
  readonly json?: boolean;
}

function inspectConfig(options: ConfigOptions, ctx: CommandContext): void {
  const mesh = /^(\d+)x(\d+)$/.exec(options.mesh);
  if (!mesh)
    throw new InputError(`--mesh must look like 2x2 (tiles across x down), got ${JSON.stringify(options.mesh)}`);
  const defines = options.define ?? [];
  for (const define of defines)
    if (!DEFINE_RE.test(define))
      throw new InputError(
        `--define ${JSON.stringify(define)}: RTL defines are upper snake case, e.g. CONFIG_DISABLE_BIST_CLEAR`,
      );
  const input: PitonConfigInput = {
    core: options.core,
    x_tiles: Number(mesh[1]),
    y_tiles: Number(mesh[2]),
    config_rtl: ['MINIMAL_MONITORING', ...defines.filter((d) => d !== 'MINIMAL_MONITORING')],
    caches: parseCaches(options.cache ?? []),
    ...(options.network ? { network_config: options.network } : {}),
    ...(options.coverage ? { extra_flags: [COVERAGE_LINE_FLAG] } : {}),
  };
  let config;
  try {
    config = makeConfig(input);
  } catch (error) {
    if (error instanceof PitonConfigError) throw new InputError(error.message);
    throw error;
  }
  const flags = simsFlags(config);
  const violations = wayViolations(config);
  if (options.json) {
    printJson(ctx.io, { build_id: buildId(config), key: configKey(config), flags, config, way_violations: violations });
    return;
  }
  ctx.io.out(`build id  ${buildId(config)}`);
  ctx.io.out(`flags     ${flags.join(' ')}`);
  for (const line of violations) ctx.io.out(`refused   way rule: ${line} (the build would fail with way_rule)`);
}

function parseCaches(specs: readonly string[]): Partial<Record<CacheName, CacheGeometry>> {
  const caches: Partial<Record<CacheName, CacheGeometry>> = {};
  for (const spec of specs) {
    const match = /^(\w+)=(\d+),(\d+)$/.exec(spec);
    if (!match || !(CACHE_NAMES as readonly string[]).includes(match[1]!))
      throw new InputError(
        `--cache ${JSON.stringify(spec)}: expected <name>=<size>,<ways> with name one of ${CACHE_NAMES.join(', ')}, e.g. l1d=16384,4`,
      );
    caches[match[1] as CacheName] = [Number(match[2]), Number(match[3])];
  }
  return caches;
}
