/**
 * The text formats OpenPiton's tools print, as the real logs show them: sims' banner and die line,
 * Verilator's diagnostics, the testbench's sim.log lines and regreport's status.log.
 */
import { hostname, machine, release, type as osType, version as osVersion } from 'node:os';
import { basename } from 'node:path';
import type { Verdict } from '../model/behaviour.ts';
import type { SourceError } from '../model/source.ts';

/** `date`'s default output in UTC: `Sun Nov 29 17:55:03 UTC 2026`. */
export function dateLine(at: Date = new Date()): string {
  const day = at.toLocaleString('en-US', { weekday: 'short', timeZone: 'UTC' });
  const month = at.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
  const dd = String(at.getUTCDate()).padStart(2, ' ');
  const time = at.toISOString().slice(11, 19);
  return `${day} ${month} ${dd} ${time} UTC ${at.getUTCFullYear()}`;
}

/** The banner sims prints after echoing its arguments (print_header). */
export function banner(argv: readonly string[], dvRoot: string, modelDir: string, modelNote: string): string[] {
  const quoted = argv.map((a) => (/\s/.test(a) && !/^-.*?="/.test(a) ? a.replace(/^(-.*?)=(.*)$/, '$1="$2"') : a));
  return [
    `sims ${quoted.join(' ')} `,
    'sims: ====================================================',
    'sims:   Simulation Script for OpenPiton',
    'sims:   Modified by Princeton University on June 9th, 2015',
    'sims: ====================================================',
    'sims: ====================================================',
    'sims:   Simulation Script for OpenSPARC T1',
    'sims:   Copyright (c) 2001-2006 Sun Microsystems, Inc.',
    'sims:   All rights reserved.',
    'sims: ====================================================',
    `sims: start_time ${dateLine()}`,
    `sims: running on ${hostname()}`,
    `sims: uname is ${osType()} ${hostname()} ${release()} ${osVersion()} ${machine()} GNU/Linux`,
    `sims: version 2.0`,
    `sims: ${modelNote}`,
    `sims: dv_root ${dvRoot}`,
    `sims: model_dir ${modelDir}`,
    `sims: tre_search ${dvRoot}/tools/env/tools.iver`,
  ];
}

/** Lines in sims,2.0 of each `die`, which Perl appends to the message. */
export const DIE_LINES = {
  unprocessed: 2667,
  badNetwork: 2718,
  tooManyTiles: 2738,
  conflictingCores: 347,
  noSys: 473,
  noConfig: 2013,
  noDvRoot: 296,
  noModelDir: 387,
  noDiag: 2457,
  multipleDiags: 2458,
  buildVerilator: 1572,
  buildMake: 1582,
  copyFlist: 1609,
  noObjDir: 1617,
  simulator: 1877,
  rv32As: 2254,
  rv64Cc: 2293,
  simHome: 1312,
  noModel: 483,
  openFlist: 1125,
} as const;

/**
 * Patch fix 8 adds 16 lines to sims' build section for unit-test systems: the reference's
 * build_fail_pinnotfound log of pico_reset_ut dies at line 1588 where a manycore build dies at 1572.
 * Every die after that section moves by the same amount (only the first is measured).
 */
const FIX8_SHIFT = 16;
export const UNIT_DIE_LINES = {
  buildVerilator: DIE_LINES.buildVerilator + FIX8_SHIFT,
  buildMake: DIE_LINES.buildMake + FIX8_SHIFT,
  copyFlist: DIE_LINES.copyFlist + FIX8_SHIFT,
  noObjDir: DIE_LINES.noObjDir + FIX8_SHIFT,
  simulator: DIE_LINES.simulator + FIX8_SHIFT,
} as const;

/**
 * What sims prints when it dies: its __DIE__ handler prints `Caught a SIG` followed by the die
 * message, which starts with `DIE.`, and Perl's location suffix.
 */
export function sigdieLine(message: string, dvRoot: string, line: number): string {
  return `sims: Caught a SIG${message} at ${dvRoot}/tools/src/sims/sims,2.0 line ${line}.`;
}

/** Verilator's `%Error` block: the message, the source line and a caret under the column. */
export function verilatorError(error: SourceError, tag = ''): string[] {
  return diagnostic('%Error', error, tag);
}

/** A `%Warning-<tag>` block, laid out as an error is. */
export function verilatorWarning(warning: SourceError, tag: string): string[] {
  return diagnostic('%Warning', warning, tag);
}

function diagnostic(kind: string, error: SourceError, tag: string): string[] {
  const where = error.file ? `${error.file}:${error.line}:${error.col}: ` : '';
  const head = `${kind}${tag ? `-${tag}` : ''}: ${where}${error.message}`;
  if (!error.text) return [head];
  const number = String(error.line).padStart(5, ' ');
  const caret = ' '.repeat(Math.max(0, error.col - 1)) + '^' + '~'.repeat(Math.max(0, error.width - 1));
  return [head, `${number} | ${error.text}`, `${' '.repeat(number.length)} | ${caret}`];
}

/** Right-aligned like Verilog's `%d` of a 32-bit integer (11 wide). */
const dec = (n: number): string => String(n).padStart(11, ' ');

/** `%t` of the testbench: 20 wide. */
export const stamp = (time: number): string => String(time).padStart(20, ' ');

/** The testbench's opening lines, up to the first clock edge. */
export function simLogHead(opts: {
  rtlTimeout: number;
  maxCycle: number | null;
  finishMask: string | null;
  goodTrap: number;
  badTrap: number;
}): string[] {
  // The trap registers are 40 bits wide: ten hex digits.
  const hex = (n: number) => n.toString(16).padStart(10, '0');
  return [
    'Started',
    'Vcmp_top created',
    'Before first ticks',
    `wait cycles = ${dec(10)}`,
    ...(opts.maxCycle !== null ? [`max cycles = ${dec(opts.maxCycle)}`] : []),
    `rtl_timeout = ${dec(opts.rtlTimeout)}`,
    ...(opts.finishMask !== null ? [`${stamp(250)}: finish_mask ${displayedMask(opts.finishMask)}`] : []),
    `${stamp(250)}: good_trap ${hex(opts.goodTrap)}`,
    `${stamp(250)}: bad_trap ${hex(opts.badTrap)}`,
    'After very first tick',
    'Before second ticks',
    'Before third ticks',
  ];
}

/** The 32-bit register's `%h`: the low eight hex digits, zero-padded. */
function displayedMask(mask: string): string {
  return (mask.length > 8 ? mask.slice(-8) : mask).padStart(8, '0').toLowerCase();
}

/** The chipset's reset handshake, printed once the cores leave reset. */
export const RESET_LINES = [
  'Reset complete',
  'Info: Qsel value(0)',
  'Info: cpx request 1',
  'Info: cpx packet from iob ->1700000000000000000000000000000010001',
  'Info: cpx request 0',
  'Doing IOB stuff - got values: 00017000 00000000 00000000 00000000 00010001',
  'IOB sending to tile X:  0 Y:  0',
  '   raw tileid 00000000',
];

/** The verdict line exactly as the monitor prints it (PASS without a space before the colon). */
export function verdictLine(verdict: Verdict, time: number, maxCycle: number): string {
  switch (verdict) {
    case 'pass':
      return `${time}: Simulation -> PASS (HIT GOOD TRAP)`;
    case 'fail':
      return `${time} : Simulation -> FAIL(HIT BAD TRAP)`;
    case 'timeout':
      return `${time} : Simulation -> FAIL(TIMEOUT)`;
    case 'maxcycles':
      return `${time} : Simulation -> (terminated by reaching max cycles = ${maxCycle})`;
  }
}

/** Where `$finish` was called: pc_cmp for a pass, the monitor otherwise. */
export function finishLine(verdict: Verdict, dvRoot: string, tiles: number): string {
  if (verdict === 'pass')
    return `- ${dvRoot}/verif/env/manycore/pc_cmp.tmp.v:${pcCmpFinishLine(tiles)}: Verilog $finish`;
  return `- ${dvRoot}/verif/env/manycore/monitor.tmp.v:${verdict === 'maxcycles' ? 66 : 91}: Verilog $finish`;
}

/** pc_cmp.tmp.v grows with the tile count: its $finish is on line 1778 for one tile, 5360 for four. */
const pcCmpFinishLine = (tiles: number): number => 1778 + Math.round(((5360 - 1778) / 3) * (tiles - 1));

/** status.log's first word for each verdict, as regreport writes it. */
export const STATUS_WORDS: Record<Verdict, string> = {
  pass: 'PASS',
  fail: 'FAIL (HIT BAD TRAP)',
  timeout: 'Timeout (TIMEOUT)',
  maxcycles: 'MaxCycles Hit',
};

/** regreport -1's report of the run directory it is run in. */
export function statusLog(runDir: string, status: string, extra: readonly string[] = []): string {
  return [`Diag: ${basename(runDir).padEnd(40, ' ')}   ${status}`, ...extra].join('\n') + '\n';
}
