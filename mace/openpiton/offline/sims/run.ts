/**
 * `sims ... -vlt_run <diag>`: find and "assemble" the diag into the run directory (diag.exe,
 * symbol.tbl, mem.image), then "simulate" it on the built design: sim.log written as the simulation
 * advances, then status.log, perf.log and fake_uart.log as sims' post-processing leaves them.
 */
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { simulate, type RunOutcome } from '../model/behaviour.ts';
import { findProgram, unknownProgram, type Program } from '../model/catalog.ts';
import { DEFAULT_RTL_TIMEOUT } from '../model/constants.ts';
import { coreIsa, tileCount, type Design } from '../model/design.ts';
import { runSeconds } from '../model/timing.ts';
import { DESIGN_FILE } from './build.ts';
import { buildElf, memImage } from './elf.ts';
import {
  dateLine,
  DIE_LINES,
  finishLine,
  RESET_LINES,
  simLogHead,
  STATUS_WORDS,
  statusLog,
  verdictLine,
} from './formats.ts';
import type { Invocation } from './invocation.ts';
import { die, drawFlake, sleepSeconds } from './runtime.ts';

export interface Diag {
  readonly program: Program;
  /** The name sims was asked for (status and +asm_diag_name use it). */
  readonly name: string;
}

/** Where sims looks for a diag, in order: its config's root, -asm_diag_root dirs, Ariane's riscv-tests. */
function diagRoots(inv: Invocation, core: Design['core']): Array<{ shown: string; path: string }> {
  const roots = [{ shown: '$DV_ROOT/verif/diag', path: join(inv.dvRoot, 'verif/diag') }];
  for (const dir of inv.opts.lists.get('asm_diag_root') ?? []) roots.push({ shown: dir, path: dir });
  if (core === 'ariane' && inv.opts.flags.has('precompiled')) {
    const ariane = inv.env.ARIANE_ROOT ?? '';
    for (const sub of ['tmp/riscv-tests/build/isa', 'tmp/riscv-tests/build/benchmarks'])
      roots.push({ shown: `${ariane}/${sub}`, path: `${ariane}/${sub}` });
  }
  return roots;
}

/** `find <root> -follow -name <name>`. */
function findByName(root: string, name: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((entry) => basename(entry) === name)
    .map((entry) => `${root}/${entry}`)
    .filter((path) => statSync(path).isFile());
}

/** sims' assemble_diag: locate, copy and assemble; dies as sims does when it cannot. */
export function assembleDiag(inv: Invocation, design: Pick<Design, 'core' | 'xTiles' | 'yTiles'>, asked: string): Diag {
  const { out } = inv;
  const precompiled = inv.opts.flags.has('precompiled') && design.core !== 'sparc';
  const name = precompiled ? asked.replace(/\.[^.]*$/, '') : asked;
  for (const f of ['diag.pal', 'diag.s', 'diag.S', 'diag.pl', 'diag.exe', 'mem.image', 'diag.ev', 'symbol.tbl'])
    rmSync(join(inv.cwd, f), { force: true });
  out.line(`sims: locating diag ${name}`);
  let found: string[] = [];
  for (const root of diagRoots(inv, design.core)) {
    out.line(`sims: Looking for diag under ${root.shown}`);
    found = findByName(root.path, name);
    if (found.length) break;
  }
  if (!found.length) throw die(`no diag with name ${name} found`, DIE_LINES.noDiag);
  if (found.length > 1)
    throw die(
      `multiple diags with name ${name} found ${found.length - 1} ${found[0]} ${found[1]}`,
      DIE_LINES.multipleDiags,
    );
  const path = found[0]!;
  out.line(`sims: Found diag under ${path}`);

  const isa = coreIsa(design.core);
  const local = precompiled ? 'diag.exe' : /\.S$/.test(name) ? 'diag.S' : /\.c$/.test(name) ? 'diag.c' : 'diag.s';
  copyFileSync(path, join(inv.cwd, local));
  const program = findProgram(name) ?? unknownProgram(name, precompiled ? '' : readFileSync(path, 'latin1'), isa);
  if (program.isa !== isa) assemblerFailure(inv, isa, program);
  if (isa === 'rv32') {
    out.lines(['sims: assembling 32bit riscv diag (RV32IM)', 'sims: rv32_as ', name.replace(/\.[^.]*$/, '')]);
    out.line(
      '/usr/lib/gcc/riscv64-unknown-elf/12.2.0/../../../riscv64-unknown-elf/bin/ld: warning: cannot find entry symbol _start; defaulting to 40000000',
    );
  } else if (isa === 'rv64' && !precompiled) {
    out.line('sims: assembling 64bit riscv diag (RV64IMAC)');
    out.line(`sims: rv64_cc ${local} "-DPITON_NUMTILES=${tileCount(design)} "`);
  } else if (isa === 'sparc') {
    out.line(`sims: midas -mmu=niagara -DPITON_NUM_TILES=${tileCount(design)} -DUART_DIV_LATCH=0xb diag.s`);
  }
  if (isa !== 'sparc' && (isa === 'rv64' || precompiled)) out.line('sims: rv64_img');
  writeArtifacts(inv, program, !precompiled);
  out.line(`truncate diag.o -s +${isa === 'rv32' ? 104 : 56}`);
  return { program, name };
}

/** Assembling a program for the other ISA fails in the assembler. */
function assemblerFailure(inv: Invocation, isa: string, program: Program): never {
  const tool = isa === 'rv32' ? 'rv32_as' : 'rv64_cc';
  inv.out.lines([
    `sims: ${tool} `,
    `diag.S: Assembler messages:`,
    `diag.S:12: Error: ${program.name} is written for ${program.isa}, not for this core's ${isa} toolchain`,
  ]);
  throw die(
    isa === 'rv32' ? 'rv32_as compilation error' : 'rv64_cc compilation error',
    isa === 'rv32' ? DIE_LINES.rv32As : DIE_LINES.rv64Cc,
  );
}

const SYMBOL_DIGITS = { rv32: 8, rv64: 16, sparc: 16 } as const;

function writeArtifacts(inv: Invocation, program: Program, writeExe: boolean): void {
  const base = program.isa === 'rv32' ? 0x4000_0000 : program.isa === 'rv64' ? 0x8000_0000 : 0x82_0000 - 0x100;
  const { elf, text } = buildElf({
    bits: program.isa === 'rv32' ? 32 : 64,
    machine: program.isa === 'sparc' ? 43 : 243,
    base,
    symbols: [
      { name: 'fail', address: program.badTrap },
      { name: 'pass', address: program.goodTrap },
    ],
  });
  if (writeExe) writeFileSync(join(inv.cwd, 'diag.exe'), elf);
  const hex = (n: number) => n.toString(16).padStart(SYMBOL_DIGITS[program.isa], '0');
  writeFileSync(
    join(inv.cwd, 'symbol.tbl'),
    `good_trap ${hex(program.goodTrap)} X ${hex(program.goodTrap)}\nbad_trap ${hex(program.badTrap)} X ${hex(program.badTrap)}\n`,
  );
  writeFileSync(join(inv.cwd, 'mem.image'), memImage(base, text));
  writeFileSync(join(inv.cwd, 'diag.ev'), '');
}

/** Retired-instruction trace lines are capped per tile: a long run would print millions. */
const TRACE_LINES_PER_TILE = 20_000;
const CYCLES_PER_INSTRUCTION = 17.5;
/** Writes (and pauses) this many times over a run, so a killed run leaves a partial sim.log. */
const SLICES = 20;

/**
 * The run directory as sims prepares it before simulating: no sim.log from before, the model's flist
 * copied in, and a model to run; sims dies at `lines` when either is missing.
 */
export function prepareRunDir(inv: Invocation, lines: { readonly copyFlist: number; readonly noObjDir: number }): void {
  const { out, modelPath, cwd } = inv;
  rmSync(join(cwd, 'sim.log'), { force: true });
  if (!existsSync(join(modelPath, 'flist'))) {
    out.line(`cp: cannot stat '${modelPath}/flist': No such file or directory`);
    throw die(`could not copy flist to ${cwd}`, lines.copyFlist);
  }
  copyFileSync(join(modelPath, 'flist'), join(cwd, 'flist'));
  if (!existsSync(join(modelPath, 'obj_dir'))) throw die(`obj_dir/ not found in ${modelPath}`, lines.noObjDir);
}

export function vltRun(inv: Invocation, diag: Diag): void {
  const { out, modelPath, cwd, settings } = inv;
  prepareRunDir(inv, DIE_LINES);
  const design = readDesign(modelPath);
  const program = diag.program;
  const finishMask = inv.opts.strings.get('finish_mask') || null;
  const rtlTimeout = inv.opts.ints.get('rtl_timeout') || DEFAULT_RTL_TIMEOUT;
  const maxCycle = inv.opts.ints.get('max_cycle') || null;
  const digits = SYMBOL_DIGITS[program.isa];
  const hex = (n: number) => n.toString(16).padStart(digits, '0');
  out.line(
    `sims: ${modelPath}/obj_dir/Vcmp_top  +wait_cycle_to_kill=10 +dowarningfinish +doerrorfinish +spc_pipe=0` +
      (finishMask ? ` +finish_mask=${finishMask}` : '') +
      ` +TIMEOUT=${rtlTimeout}` +
      (maxCycle ? ` +max_cycle=${maxCycle}` : '') +
      ` +tg_seed=0  +good_trap0=${hex(program.goodTrap)}  +bad_trap0=${hex(program.badTrap)}` +
      ` +asm_diag_name=${diag.name} +dv_root=${inv.dvRoot}`,
  );
  out.line(`sims: LD_LIBRARY_PATH is :${inv.dvRoot}/tools/src/goldfinger/lib`);
  out.line('sims: LM_LICENSE_FILE : none');
  out.line(`sims: sim_start ${dateLine()}`);
  if (!design) throw die('simulator exited with an error', DIE_LINES.simulator);

  const started = performance.now();
  const outcome = simulate(program, design, { finishMask, rtlTimeout, maxCycle });
  const tiles = tileCount(design);
  const seconds = runSeconds(design.core, tiles, outcome.cycles) * settings.speed;
  const crashAt = drawFlake(settings, inv.modelDir) ? 0.5 : undefined;
  const simLog = join(cwd, 'sim.log');
  writeFileSync(simLog, '');
  const write = (lines: readonly string[]) => {
    if (!lines.length) return;
    writeFileSync(simLog, lines.join('\n') + '\n', { flag: 'a' });
    out.lines(lines);
  };
  write(simLogHead({ rtlTimeout, maxCycle, finishMask, goodTrap: program.goodTrap, badTrap: program.badTrap }));
  const timeline = events(design, outcome, program);
  for (let slice = 0; slice < SLICES; slice++) {
    if (crashAt !== undefined && slice >= crashAt * SLICES) {
      // The simulator process died (a host fault, not the design): sim.log just stops.
      out.line(`${modelPath}/obj_dir/Vcmp_top: Segmentation fault (core dumped)`);
      throw die('simulator exited with an error', DIE_LINES.simulator);
    }
    // Pace against the clock, so the time spent writing the log counts toward the run's duration.
    sleepSeconds(((slice + 1) / SLICES) * seconds - (performance.now() - started) / 1000);
    write(timeline.filter((e) => e.slice === slice).flatMap((e) => e.lines));
  }
  const verdict = verdictLine(outcome.verdict, outcome.time, outcome.cycles);
  write([
    verdict,
    finishLine(outcome.verdict, inv.dvRoot, tiles),
    ...(outcome.verdict === 'timeout' ? timeoutLines(1) : []),
  ]);

  out.line(`sims: sim_stop ${dateLine()}`);
  out.line('sims: "perf > perf.log"');
  writeFileSync(join(cwd, 'perf.log'), '');
  out.line('sims: "regreport -1 > status.log"');
  writeFileSync(
    join(cwd, 'status.log'),
    statusLog(cwd, STATUS_WORDS[outcome.verdict], [
      dateLine(),
      ...(outcome.verdict === 'maxcycles' && maxCycle
        ? [`sim.log: max cycles = ${String(maxCycle).padStart(11)}`]
        : []),
      `sim.log: ${verdict}`,
      ...(outcome.verdict === 'pass' || outcome.verdict === 'fail' ? [`NumTiles=${'0'.padStart(10)}`] : []),
    ]),
  );
  writeFileSync(join(cwd, 'fake_uart.log'), uartText(program, outcome, tiles));
  if (design.buildArgs.some((a) => a.startsWith('--coverage')))
    writeFileSync(join(cwd, 'coverage.dat'), coverageData(design, outcome));
}

export function readDesign(modelPath: string): Design | undefined {
  try {
    return JSON.parse(readFileSync(join(modelPath, 'obj_dir', DESIGN_FILE), 'utf8')) as Design;
  } catch {
    return undefined;
  }
}

interface TimedLines {
  readonly slice: number;
  readonly lines: string[];
}

/** Everything the run prints before its verdict, placed in time slices by the cycle it happens at. */
function events(design: Design, outcome: RunOutcome, program: Program): TimedLines[] {
  const total = Math.max(1, outcome.cycles);
  const sliceOf = (cycles: number) => Math.min(SLICES - 1, Math.floor((cycles / total) * SLICES));
  const out: TimedLines[] = [];
  const traces = design.core === 'pico' || design.core === 'generic' ? picoTraces(outcome, program, total) : [];
  let printed = 0;
  for (let slice = 0; slice < SLICES; slice++) {
    const lines: string[] = [];
    for (const trace of traces) lines.push(...trace.filter((t) => sliceOf(t.cycles) === slice).map((t) => t.text));
    const before = printed;
    printed += lines.length;
    // The C++ side's reset messages reach the log once its buffer flushes, a few hundred lines in.
    if ((before < 251 && printed >= 251) || (slice === 0 && !traces.length)) lines.push(...RESET_LINES);
    out.push({ slice, lines });
  }
  if (traces.length && printed < 251) out[0]!.lines.push(...RESET_LINES);
  outcome.goodTraps.forEach((tile) => {
    const fate = outcome.fates[tile]!;
    if (fate.kind === 'good')
      out.push({ slice: sliceOf(fate.cycles), lines: [`Info: spc(${tile.toString(16)}) thread(0) Hit Good trap`] });
  });
  if (outcome.badTrapTile !== null)
    out.push({
      slice: SLICES - 1,
      lines: [`${outcome.time}: Info - > Hit Bad trap. spc(${outcome.badTrapTile}) thread(0)`],
    });
  if (outcome.verdict === 'timeout') out.push({ slice: SLICES - 1, lines: timeoutLines(tileCount(design)) });
  return out;
}

/** The monitor's complaint about each tile slot's inactive threads 1-3. */
function timeoutLines(tiles: number): string[] {
  return Array.from({ length: tiles }, (_, tile) =>
    [1, 2, 3].map((thread) => `Info: spc(${tile}) thread(${thread}) -> timeout happen`),
  ).flat();
}

/**
 * PicoRV32's monitor prints every retired instruction (`Current PC: ..., Next PC: ...`), about one
 * per 17.5 cycles here. The model walks each tile from the reset vector to its trap, looping in the
 * middle of the program to fill the run, and interleaves the tiles.
 */
function picoTraces(
  outcome: RunOutcome,
  program: Program,
  total: number,
): Array<Array<{ cycles: number; text: string }>> {
  return outcome.fates.map((fate) => {
    if (fate.kind === 'parked') return [];
    const end = Math.min(fate.cycles, total);
    const count = Math.max(1, Math.min(TRACE_LINES_PER_TILE, Math.round(end / CYCLES_PER_INSTRUCTION)));
    const target = fate.kind === 'bad' ? program.badTrap : fate.kind === 'good' ? program.goodTrap : undefined;
    const pcs = walk(0x4000_0000, target, count);
    return pcs.map((pc, i) => ({
      cycles: ((i + 1) / count) * end,
      text: `Current PC: 0x${pc.toString(16).padStart(8, '0')}, Next PC: 0x${pc.toString(16).padStart(8, '0')}`,
    }));
  });
}

function walk(base: number, target: number | undefined, count: number): number[] {
  if (target === undefined) return Array.from({ length: count }, (_, i) => base + 4 * Math.min(i, 3));
  const straight = Math.max(1, (target - base) / 4);
  const loopAt = base + 4 * Math.floor(straight / 3);
  const pcs: number[] = [];
  for (let pc = base; pc < loopAt && pcs.length < count - 1; pc += 4) pcs.push(pc);
  const tail = Math.max(0, Math.floor(straight) - (loopAt - base) / 4);
  while (pcs.length < count - 1 - tail)
    for (let k = 0; k < 5 && pcs.length < count - 1 - tail; k++) pcs.push(loopAt + 4 * k);
  for (let pc = loopAt; pcs.length < count - 1; pc += 4) pcs.push(Math.min(pc, target - 4));
  pcs.push(target);
  return pcs;
}

function uartText(program: Program, outcome: RunOutcome, tiles: number): string {
  if (!program.uart) return '';
  return outcome.goodTraps
    .flatMap((tile) => program.uart!(tile, tiles))
    .map((l) => `${l}\n`)
    .join('');
}

/**
 * A Verilator coverage file: one point per covered line of the design, hit or not. The totals are
 * the model's own (Ariane's 24311 points are the fixture's), not measured per configuration.
 */
function coverageData(design: Design, outcome: RunOutcome): string {
  const total = design.core === 'ariane' ? 24_311 : design.core === 'sparc' ? 31_000 : 14_000;
  const reach = Math.min(0.6, 0.15 + 0.06 * Math.log10(Math.max(10, outcome.cycles)));
  const hit = Math.round(total * reach);
  const lines = ['# SystemC::Coverage-3'];
  for (let i = 0; i < total; i++)
    lines.push(`C '\x01f\x02model.v\x01l\x02${i + 1}\x01page\x02v_line/model' ${i < hit ? 1 : 0}`);
  return lines.join('\n') + '\n';
}
