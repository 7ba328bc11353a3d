/**
 * sims for a unit-test environment (`-sys=<env>`), as OpenPiton's sims with patch fix 8 does it: the
 * environment's block of sims.config (after its #include lines) is read as arguments before the
 * command line's; the build generates the flist from the block's -flist files and elaborates the
 * environment's own files against every module of the build (unknown modules, pins the module does not
 * have, the scaffold's unreplaced placeholders, missing include files, delays without a timing
 * option); a model that builds leaves obj_dir/V<toplevel>. Running one stops where Verilator stops on
 * the test infrastructure's settle loop.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { definedModules, position, stripComments } from '../../verilog.ts';
import { elaborate, type SourceFile } from '../model/elaborate.ts';
import type { SourceError } from '../model/source.ts';
import { FAILURE_POINT, RUN_STARTUP_SECONDS, UNIT_BUILD_SECONDS } from '../model/timing.ts';
import { SETTLE_LINE, TEST_INFRSTRCT_PATH, TESTBENCH_PLACEHOLDERS } from '../unit-template.ts';
import { dateLine, DIE_LINES, UNIT_DIE_LINES, verilatorError, verilatorWarning } from './formats.ts';
import type { Invocation } from './invocation.ts';
import { parseSimsArgs, type SimsOptions } from './options.ts';
import { die, drawFlake, sleepSeconds } from './runtime.ts';
import { prepareRunDir } from './run.ts';
import { exitLine, invalidOption } from './verilator.ts';

/** The file beside V<toplevel> that records what was built. */
const UNIT_DESIGN_FILE = 'mace_offline_unit.json';

/**
 * The arguments of `<sys>`'s block in sims.config, as bw_cpp and get_config see them: #include lines
 * expanded from the config directory, comments dropped, one argument per non-empty line. Undefined
 * when no block names the system.
 */
export function configArguments(dvRoot: string, sys: string): string[] | undefined {
  const dir = join(dvRoot, 'tools/src/sims');
  const expand = (file: string, depth: number): string => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return '';
    }
    return text.replace(/^[ \t]*#include\s+"([^"]+)"[ \t]*$/gm, (_, name: string) =>
      depth < 8 ? expand(join(dir, name), depth + 1) : '',
    );
  };
  const text = expand(join(dir, 'sims.config'), 0).replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
  const escaped = sys.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const body = new RegExp(`<\\s*${escaped}\\s*>\\s+([\\s\\S]*?)<\\s*/${escaped}\\s*>`, 'i').exec(text)?.[1];
  if (body === undefined) return undefined;
  return body
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** The call's options: the block's arguments (unshifted one by one, so in reverse) before the command line's. */
export function unitOptions(blockArgs: readonly string[], argv: readonly string[]): SimsOptions {
  return parseSimsArgs([...blockArgs].reverse().concat(argv));
}

/** `$NAME` replaced from the environment, as sims does in flists and their lines. */
const substitute = (text: string, env: NodeJS.ProcessEnv): string =>
  text.replace(/\$(\w+)/g, (_, name: string) => env[name] ?? '');

interface FileList {
  readonly sources: readonly string[];
  readonly incdirs: readonly string[];
}

/** sims' gen_flist: config.v, then each -flist's lines, relative ones made absolute against the flist's folder. */
function generateFlist(inv: Invocation, env: NodeJS.ProcessEnv): FileList & { readonly lines: string[] } {
  const lines = [join(inv.modelPath, 'config.v')];
  const sources: string[] = [];
  const incdirs: string[] = [];
  for (const given of inv.opts.lists.get('flist') ?? []) {
    const flist = substitute(given, env);
    if (!existsSync(flist)) throw die(`can't open flist file ${flist}`, DIE_LINES.openFlist);
    inv.out.line(flist);
    const base = dirname(flist);
    for (const raw of readFileSync(flist, 'utf8').split('\n')) {
      const line = substitute(raw.trim(), env);
      if (!line || line.startsWith('//')) continue;
      const incdir = /^\+incdir\+(.*)$/.exec(line);
      if (incdir) {
        const dir = isAbsolute(incdir[1]!) ? incdir[1]! : join(base, incdir[1]!);
        incdirs.push(dir);
        lines.push(`+incdir+${dir}`);
      } else if (/^[-+]/.test(line)) {
        lines.push(line);
      } else {
        const path = isAbsolute(line) ? line : join(base, line);
        sources.push(path);
        lines.push(path);
      }
    }
  }
  for (const arg of buildArgs(inv.opts)) {
    const incdir = /^\+incdir\+(.*)$/.exec(arg);
    if (incdir) incdirs.push(substitute(incdir[1]!, env));
  }
  return { lines, sources, incdirs };
}

const buildArgs = (opts: SimsOptions): string[] => [
  ...(opts.lists.get('sim_build_args') ?? []),
  ...(opts.lists.get('vlt_build_args') ?? []),
];

const toplevel = (opts: SimsOptions): string => opts.lists.get('toplevel')?.[0] ?? '';

/** `sims -sys=<env> -vlt_build`. */
export function unitBuild(inv: Invocation, sys: string): void {
  const { out, dvRoot, modelPath, settings, opts } = inv;
  const env = { ...inv.env, DV_ROOT: dvRoot };
  const pace = (seconds: number) => sleepSeconds(seconds * settings.speed);
  out.line(`sims: creating model directory ${modelPath}`);
  mkdirSync(join(modelPath, 'lib'), { recursive: true });
  if (opts.flags.has('clean')) out.line('sims: cleaning up build directory');

  const flist = generateFlist(inv, env);
  writeFileSync(join(modelPath, 'flist'), flist.lines.join('\n') + '\n');
  writeFileSync(join(modelPath, 'config.v'), '');
  copyFileSync(join(modelPath, 'flist'), join(inv.cwd, 'flist'));
  const top = toplevel(opts);
  const args = buildArgs(opts).map((a) => substitute(a, env));
  out.line('sims: LM_LICENSE_FILE : none');
  out.line('sims: Building rtl model');
  out.line(
    `sims: verilator -cc -exe ${dvRoot}/tools/verilator/unit_top.cpp --top-module ${top} -Wno-fatal -Wno-BLKANDNBLK ` +
      `-Wno-TIMESCALEMOD --unroll-count 256 -CFLAGS -DVERILATOR -CFLAGS -DMACE_UNIT_TOP=V${top} ` +
      `${args.join(' ')} -f ${modelPath}/flist -Mdir ${modelPath}/obj_dir`,
  );
  const bad = invalidOption(args);
  if (bad) {
    out.line(`%Error: Invalid option: ${bad}`);
    pace(1);
    throw die('failed building model', UNIT_DIE_LINES.buildVerilator);
  }

  const { errors, warnings } = elaborateEnvironment(inv, sys, flist, top, args);
  const warningLines = warnings.flatMap((w) => verilatorWarning(w, w.tag ?? ''));
  if (errors.length) {
    out.lines(warningLines);
    out.lines(errors.slice(0, 50).flatMap((e) => verilatorError(e, e.tag)));
    out.line(exitLine(errors.length));
    pace(UNIT_BUILD_SECONDS * FAILURE_POINT.elaboration);
    throw die('failed building model', UNIT_DIE_LINES.buildVerilator);
  }
  out.lines(warningLines);
  pace(UNIT_BUILD_SECONDS * 0.4);
  const objDir = join(modelPath, 'obj_dir');
  out.line(`sims: make -C ${objDir} -f V${top}.mk V${top}`);
  if (drawFlake(settings, inv.modelDir)) {
    pace(UNIT_BUILD_SECONDS * 0.3);
    out.lines([
      'g++: fatal error: Killed signal terminated program cc1plus',
      'compilation terminated.',
      `make: *** [${objDir}/V${top}.mk:68: V${top}__ALL.a] Error 1`,
    ]);
    throw die('failed building model', UNIT_DIE_LINES.buildMake);
  }
  pace(UNIT_BUILD_SECONDS * 0.6);
  rmSync(objDir, { recursive: true, force: true });
  mkdirSync(objDir, { recursive: true });
  writeFileSync(join(objDir, UNIT_DESIGN_FILE), JSON.stringify({ sys, toplevel: top, sources: flist.sources }) + '\n');
  const binary = join(objDir, `V${top}`);
  writeFileSync(
    binary,
    '#!/bin/sh\n# Built by the mace offline model of OpenPiton: a unit-test environment.\n' +
      'echo "offline model binary: run it with sims -vlt_run" >&2\nexit 1\n',
  );
  chmodSync(binary, 0o755);
  out.lines([
    `g++    unit_top.o verilated.o verilated_threads.o V${top}__ALL.a    -pthread -lpthread -latomic   -o V${top}`,
    `make: Leaving directory '${objDir}'`,
  ]);
}

/** Verilator's findings on the environment's own files (piton/verif/env/<sys>/), against every file of the build. */
function elaborateEnvironment(
  inv: Invocation,
  sys: string,
  flist: FileList,
  top: string,
  args: readonly string[],
): { errors: SourceError[]; warnings: SourceError[] } {
  const errors: SourceError[] = [];
  const files: SourceFile[] = [];
  for (const path of flist.sources) {
    try {
      files.push({ path, text: readFileSync(path, 'utf8') });
    } catch {
      errors.push(placeless(`Cannot find file containing module: '${path}'`));
    }
  }
  const envDir = join(inv.dvRoot, 'verif/env', sys) + '/';
  const checked = files.filter((f) => f.path.startsWith(envDir));
  for (const file of checked) errors.push(...includeErrors(file, flist.incdirs), ...placeholderErrors(file));
  const elaboration = elaborate(files, checked);
  errors.push(...elaboration.errors);
  if (!files.some((f) => definedModules(f.text).includes(top)))
    errors.push(placeless(`Specified --top-module '${top}' was not found in design.`));
  const delays = checked.flatMap(delaysOf);
  const timed = args.some((a) => a.includes('timing'));
  if (!timed && delays.length)
    errors.push({
      ...delays[0]!,
      message: 'Use --timing or --no-timing to specify how delays should be handled',
      tag: 'NEEDTIMINGOPT',
    });
  const warnings: SourceError[] = [
    ...elaboration.warnings.map((w) => ({ ...w, tag: 'PINMISSING' })),
    ...(timed
      ? delays.map((d) => ({ ...d, message: 'Ignoring delay on this statement due to --no-timing', tag: 'STMTDLY' }))
      : []),
  ];
  const order = (a: SourceError, b: SourceError) =>
    a.file === b.file ? a.line - b.line || a.col - b.col : a.file < b.file ? -1 : 1;
  return { errors: errors.sort(order), warnings: warnings.sort(order) };
}

/** An error Verilator reports without a source position. */
const placeless = (message: string): SourceError => ({ file: '', line: 0, col: 0, message, text: '', width: 0 });

/** `include` files that neither the file's folder nor any +incdir+ holds. */
function includeErrors(file: SourceFile, incdirs: readonly string[]): SourceError[] {
  const code = stripComments(file.text).split('\n');
  const out: SourceError[] = [];
  file.text.split('\n').forEach((raw, i) => {
    if (!/^\s*`include\b/.test(code[i] ?? '')) return;
    const m = /`include\s+"([^"]+)"/.exec(raw);
    if (!m) return;
    const found = [dirname(file.path), ...incdirs].some((dir) => existsSync(join(dir, m[1]!)));
    if (!found)
      out.push({
        file: file.path,
        line: i + 1,
        col: m.index + m[0].indexOf('"') + 1,
        message: `Cannot find include file: '${m[1]}'`,
        text: raw,
        width: m[1]!.length + 2,
      });
  });
  return out;
}

/** The scaffold's placeholders, still used and declared nowhere: Verilator cannot resolve them. */
function placeholderErrors(file: SourceFile): SourceError[] {
  const code = stripComments(file.text);
  const lines = file.text.split('\n');
  const out: SourceError[] = [];
  for (const name of TESTBENCH_PLACEHOLDERS) {
    if (new RegExp(`\\b(?:parameter|localparam)\\b[^;]*\\b${name}\\s*=`).test(code)) continue;
    const use = new RegExp(`(^|[^\`.\\w])(${name})\\b`).exec(code);
    if (!use) continue;
    const at = position(code, use.index + use[1]!.length);
    out.push({
      file: file.path,
      ...at,
      message: `Can't find definition of variable: '${name}'`,
      text: lines[at.line - 1] ?? '',
      width: name.length,
    });
  }
  return out;
}

/** `#<number>` delays, where they stand. */
function delaysOf(file: SourceFile): SourceError[] {
  const code = stripComments(file.text);
  const lines = file.text.split('\n');
  return [...code.matchAll(/#\s*\d+/g)].map((m) => {
    const at = position(code, m.index!);
    return { file: file.path, ...at, message: '', text: lines[at.line - 1] ?? '', width: 1 };
  });
}

/**
 * `sims -sys=<env> -vlt_run`: the unit-test model starts, and Verilator's scheduler stops it on the
 * test infrastructure's delayed `always @*` (the reference's pico_reset_ut: it builds, and running it
 * stops with "Settle region did not converge").
 */
export function unitRun(inv: Invocation): void {
  const { out, modelPath, cwd, dvRoot } = inv;
  prepareRunDir(inv, UNIT_DIE_LINES);
  const top = toplevel(inv.opts);
  const runArgs = (inv.opts.lists.get('sim_run_args') ?? []).map((a) => substitute(a, { ...inv.env, DV_ROOT: dvRoot }));
  out.line(`sims: ${modelPath}/obj_dir/V${top} ${runArgs.join(' ')}`);
  out.line('sims: LM_LICENSE_FILE : none');
  out.line(`sims: sim_start ${dateLine()}`);
  sleepSeconds(RUN_STARTUP_SECONDS * inv.settings.speed);
  const lines = [
    `%Error: ${dvRoot}/${TEST_INFRSTRCT_PATH.replace(/^piton\//, '')}:${SETTLE_LINE}: Settle region did not converge.`,
    'Aborting...',
  ];
  writeFileSync(join(cwd, 'sim.log'), lines.join('\n') + '\n');
  out.lines(lines);
  throw die('simulator exited with an error', UNIT_DIE_LINES.simulator);
}

/** The options a unit-test call runs with, or a die when sims.config has no block for the system. */
export function unitInvocationOptions(dvRoot: string, sys: string, argv: readonly string[]): SimsOptions {
  const block = configArguments(dvRoot, sys);
  if (!block) throw die(`could not find ${sys} in ${dvRoot}/tools/src/sims/sims.config`, DIE_LINES.noConfig);
  const opts = unitOptions(block, argv);
  if (!opts.strings.get('model')) throw die('-model is not defined', DIE_LINES.noModel);
  return opts;
}
