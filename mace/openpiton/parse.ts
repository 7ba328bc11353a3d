/**
 * Pure parsers for what OpenPiton leaves behind: the simulation verdict in sim.log, regreport's
 * status.log and regression summary, Verilator's coverage total, `sims` build output (failure tag and
 * error lines), `verilator --version`, diaglists, and the first divergence of two logs.
 *
 * The patterns and rule orders are the original adapter's (python-mace-openpiton-adapter.md §3), so a
 * log gets the same verdict and failure tag here as there. Logs can be large (a PicoRV32 sim.log prints
 * one line per instruction, a Verilator build megabytes of warnings), so the rules that read a whole
 * log are line scanners: the workspace streams files through them, and the text functions below feed
 * them a string. Every pattern here matches within one line, which is what makes the two equivalent.
 */
import type { StatusDiag, Verdict } from './artifacts.ts';

/** Feeds each line of a text to a scanner; `\r\n` and `\n` both end a line. */
export function scanText<S extends LineScanner>(text: string, scanner: S): S {
  for (const line of text.split(/\r?\n/)) scanner.push(line);
  return scanner;
}

export interface LineScanner {
  push(line: string): void;
}

// ---------------------------------------------------------------------------------------------------
// §3.1 Simulation verdict (sim.log, or the sims run's stdout)

const PASS_RE = /Simulation\s*->\s*PASS\b/;
const FAIL_RE = /Simulation\s*->\s*FAIL\s*\((.*?)\)/;
const MAXCYC_RE = /Simulation\s*->\s*\(terminated by reaching max cycles\s*=\s*(\d+)\)/;
const TIMEOUT_TEXT_RE = /TIMEOUT/i;
const TIMEOUT_HAPPEN_RE = /->\s*timeout happen/;
const SIM_TIME_RE = /^\s*(\d+)\s*:?\s*Simulation\s*->/;

/** What a simulation log says, collected in one pass. */
export interface SimLogFacts {
  /** The message of the first `Simulation -> FAIL(...)` line, or null. */
  readonly failMessage: string | null;
  /** The limit in the first `terminated by reaching max cycles = N` line, or null. */
  readonly maxCycles: number | null;
  readonly sawPass: boolean;
  readonly sawTimeoutHappen: boolean;
  /** Simulated time on the first verdict line, or null. */
  readonly simTime: number | null;
}

export class SimLogScanner implements LineScanner {
  private failMessage: string | null = null;
  private maxCycles: number | null = null;
  private sawPass = false;
  private sawTimeoutHappen = false;
  private simTime: number | null = null;

  push(line: string): void {
    if (this.failMessage === null) {
      const fail = FAIL_RE.exec(line);
      if (fail) this.failMessage = fail[1]!;
    }
    if (this.maxCycles === null) {
      const max = MAXCYC_RE.exec(line);
      if (max) this.maxCycles = Number(max[1]);
    }
    if (!this.sawPass && PASS_RE.test(line)) this.sawPass = true;
    if (!this.sawTimeoutHappen && TIMEOUT_HAPPEN_RE.test(line)) this.sawTimeoutHappen = true;
    if (this.simTime === null) {
      const time = SIM_TIME_RE.exec(line);
      if (time) this.simTime = Number(time[1]);
    }
  }

  facts(): SimLogFacts {
    return {
      failMessage: this.failMessage,
      maxCycles: this.maxCycles,
      sawPass: this.sawPass,
      sawTimeoutHappen: this.sawTimeoutHappen,
      simTime: this.simTime,
    };
  }
}

export const simLogFacts = (text: string): SimLogFacts => scanText(text, new SimLogScanner()).facts();

/**
 * The verdict, failing closed: a FAIL line anywhere beats everything (and is a timeout when its
 * message says so), then max cycles, then PASS, then a monitor's `-> timeout happen`.
 */
export function verdictOf(facts: SimLogFacts): Verdict | null {
  if (facts.failMessage !== null) return TIMEOUT_TEXT_RE.test(facts.failMessage) ? 'timeout' : 'fail';
  if (facts.maxCycles !== null) return 'maxcycles';
  if (facts.sawPass) return 'pass';
  if (facts.sawTimeoutHappen) return 'timeout';
  return null;
}

export const simVerdict = (text: string): Verdict | null => verdictOf(simLogFacts(text));

/** The simulated finish time printed on the first verdict line. */
export const simTime = (text: string): number | null => simLogFacts(text).simTime;

/** The FAIL message, such as `HIT BAD TRAP`, stripped; empty without one. */
export const failReason = (text: string): string => simLogFacts(text).failMessage?.trim() ?? '';

export const maxCycles = (text: string): number | null => simLogFacts(text).maxCycles;

// ---------------------------------------------------------------------------------------------------
// §3.2 status.log, as `regreport -1` writes it

/** Status words include `PASS`, `FAIL (HIT BAD TRAP)`, `Timeout (TIMEOUT)`, `MaxCycles Hit`, `Unknown (No Status)`. */
export function statusDiag(text: string): StatusDiag | null {
  const match = /^Diag:\s+(\S+)\s+(.+?)\s*$/m.exec(text);
  return match ? { name: match[1]!, status: match[2]! } : null;
}

const firstInt = (re: RegExp, text: string): number | null => {
  const match = re.exec(text);
  return match ? Number(match[1]) : null;
};

export const cycles = (text: string): number | null => firstInt(/\bCyc=\s*(\d+)/, text);
export const execCycles = (text: string): number | null => firstInt(/\bExecCyc=\s*(\d+)/, text);
export const numTiles = (text: string): number | null => firstInt(/\bNumTiles=\s*(\d+)/, text);

// ---------------------------------------------------------------------------------------------------
// §3.3 Regression summary (`regreport <dir> -summary`)

export const REGRESS_LABELS = [
  'PASS',
  'FAIL',
  'Diag Problem',
  'License Problem',
  'MaxCycles Hit',
  'Socket Problem',
  'Timeout',
  'LessThreads',
  'Simics Problem',
  'Performance',
  'Killed By Job Q',
  'Unknown',
  'UnFinished',
  'flexlm error',
] as const;

export interface RegressSummary {
  /** From `REGRESSION PASSED|FAILED`; null when that line is absent, which is not a failure. */
  readonly passed: boolean | null;
  /** Each label found, with its count in the first column. */
  readonly counts: Readonly<Record<string, number>>;
  readonly diagCount: number | null;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function regressSummary(text: string): RegressSummary {
  const verdict = /^REGRESSION (PASSED|FAILED)\s*$/m.exec(text);
  const counts: Record<string, number> = {};
  for (const label of REGRESS_LABELS) {
    const count = firstInt(new RegExp(`^\\s*${escapeRegExp(label)}:\\s*(\\d+)`, 'm'), text);
    if (count !== null) counts[label] = count;
  }
  return {
    passed: verdict ? verdict[1] === 'PASSED' : null,
    counts,
    diagCount: firstInt(/^\s*Diag Count:\s*(\d+)/m, text),
  };
}

// ---------------------------------------------------------------------------------------------------
// §3.4 Coverage (`verilator_coverage --annotate` output)

export interface CoverageSummary {
  readonly hit: number | null;
  readonly total: number | null;
  /** Recomputed from hit/total to two decimals (the tool prints it rounded down); null without a total. */
  readonly percent: number | null;
}

export function coverageSummary(text: string): CoverageSummary {
  const match = /Total coverage\s*\((\d+)\/(\d+)\)\s*([\d.]+)%/.exec(text);
  if (!match) return { hit: null, total: null, percent: null };
  const hit = Number(match[1]);
  const total = Number(match[2]);
  const percent = total === 0 ? Number(match[3]) : Math.round((10000 * hit) / total) / 100;
  return { hit, total, percent };
}

// ---------------------------------------------------------------------------------------------------
// §3.5 sims's own messages

const SIMS_DIE_RE = /DIE\.\s*(.+?)(?:\s+at\s+\S+\s+line\s+\d+\.?)?\s*$/;

/** Why sims died (`sims: Caught a SIGDIE. <why> at <file> line N.`), without the Perl location. */
export function simsDie(text: string): string | null {
  return scanText(text, new SimsDieScanner()).messages[0] ?? null;
}

/** Every `DIE.` message, in order: a log of several sims calls can hold more than one. */
export class SimsDieScanner implements LineScanner {
  readonly messages: string[] = [];
  push(line: string): void {
    const match = SIMS_DIE_RE.exec(line);
    if (match) this.messages.push(match[1]!);
  }
}

export function modelDir(text: string): string | null {
  return /^sims:\s*creating model directory\s+(.+?)\s*$/m.exec(text)?.[1] ?? null;
}

// ---------------------------------------------------------------------------------------------------
// §3.6–3.8 Build output: failure tag, error lines, testbench port mismatch

/** Tags in the order they are tried; the first that matches anywhere in the output wins. */
export const BUILD_FAILURE_RULES: readonly (readonly [tag: string, pattern: RegExp])[] = [
  ['verilator_needs_timing_flag', /%Error-NEEDTIMINGOPT/],
  ['verilator_bad_option', /%Error:\s*Invalid option:\s*(\S+)/],
  ['pch_link_failure', /undefined reference to [`'"]main/],
  ['verilog_error', /%Error(?:-[A-Z]+)?:/],
  ['compile_error', /^\s*\S+:\d+:\d+:\s*error:/],
  ['make_failed', /^make(?:\[\d+\])?:\s*\*\*\*/],
];

const ERROR_LINE_RE = /^(?:%Error(?:-[A-Z]+)?:.*|\s*\S+:\d+:\d+:\s*(?:fatal )?error:.*)$/;
const PINNOTFOUND_RE = /%Error-PINNOTFOUND\b/;
export const BUILD_ERROR_LIMIT = 20;

export interface BuildOutputFacts {
  /** A tag from BUILD_FAILURE_RULES, `sims_die:<message>`, or empty when nothing matched. */
  readonly failureReason: string;
  /** The first error lines (Verilator `%Error` and compiler `file:line:col: error:`), stripped. */
  readonly errors: readonly string[];
  /** How many error lines there were in all, past the limit too. */
  readonly errorCount: number;
  readonly simsDie: string | null;
  /** `%Error-PINNOTFOUND`: a testbench connects a port the module does not have. */
  readonly pinNotFound: boolean;
}

/** One pass over a build's full output (stdout, then stderr). */
export class BuildOutputScanner implements LineScanner {
  private readonly matched = new Set<string>();
  private readonly errors: string[] = [];
  private errorCount = 0;
  private readonly die = new SimsDieScanner();
  private pinNotFound = false;

  constructor(private readonly limit = BUILD_ERROR_LIMIT) {}

  push(line: string): void {
    for (const [tag, pattern] of BUILD_FAILURE_RULES)
      if (!this.matched.has(tag) && pattern.test(line)) this.matched.add(tag);
    if (ERROR_LINE_RE.test(line)) {
      const stripped = line.trim();
      if (!stripped.startsWith('%Error: Exiting due to')) {
        this.errorCount += 1;
        if (this.errors.length < this.limit) this.errors.push(stripped);
      }
    }
    this.die.push(line);
    if (!this.pinNotFound && PINNOTFOUND_RE.test(line)) this.pinNotFound = true;
  }

  facts(): BuildOutputFacts {
    const rule = BUILD_FAILURE_RULES.find(([tag]) => this.matched.has(tag));
    const die = this.die.messages[0] ?? null;
    return {
      failureReason: rule ? rule[0] : die ? `sims_die:${die}` : '',
      errors: [...this.errors],
      errorCount: this.errorCount,
      simsDie: die,
      pinNotFound: this.pinNotFound,
    };
  }
}

export const buildOutputFacts = (stdout: string, stderr = '', limit = BUILD_ERROR_LIMIT): BuildOutputFacts =>
  scanText(`${stdout}\n${stderr}`, new BuildOutputScanner(limit)).facts();

export const buildFailureReason = (stdout: string, stderr = ''): string =>
  buildOutputFacts(stdout, stderr).failureReason;

export const buildErrors = (stdout: string, stderr = '', limit = BUILD_ERROR_LIMIT): string[] => [
  ...buildOutputFacts(stdout, stderr, limit).errors,
];

/** `%Warning-PINMISSING` alone is not a mismatch; only `%Error-PINNOTFOUND` is. */
export const isTestbenchPortMismatch = (output: string): boolean => PINNOTFOUND_RE.test(output);

// ---------------------------------------------------------------------------------------------------
// §3.9 Verilator version

export function verilatorVersion(text: string): readonly [major: number, minor: number] | null {
  const match = /Verilator\s+(\d+)\.(\d+)/.exec(text);
  return match ? [Number(match[1]), Number(match[2])] : null;
}

/** Verilator 5 needs `--no-timing` for OpenPiton's testbench delays; unparseable text says no. */
export function needsNoTiming(versionText: string): boolean {
  const version = verilatorVersion(versionText);
  return version !== null && version[0] >= 5;
}

// ---------------------------------------------------------------------------------------------------
// §3.10 Diaglists

export interface DiagEntry {
  readonly alias: string;
  /** The diag file: the first token that does not start with `-` and holds a `.`. */
  readonly source: string;
  /** `<runargs>` flags in force first, then the line's own tokens, in file order. */
  readonly args: readonly string[];
}

/**
 * The tests of one group of a diaglist (`<group attrs...>` ... `</group>`), with nested groups
 * flattened. Throws when the group is missing or never closed.
 */
export function diaglistGroup(text: string, group: string): DiagEntry[] {
  const lines = text.split(/\r?\n/).map((line) => line.replace(/\/\/.*$/, '').trim());
  const open = new RegExp(`^<${escapeRegExp(group)}(\\s[^>]*)?>$`);
  const start = lines.findIndex((line) => open.test(line));
  if (start < 0) throw new Error(`diaglist has no group <${group}>`);
  const runargs: string[][] = [];
  const entries: DiagEntry[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line === `</${group}>`) return entries;
    if (!line) continue;
    if (line.startsWith('<')) {
      const runargsOpen = /^<runargs(?:\s+([^>]*))?>$/.exec(line);
      if (runargsOpen) runargs.push(tokens(runargsOpen[1] ?? ''));
      else if (line === '</runargs>') runargs.pop();
      continue;
    }
    const [alias, ...rest] = tokens(line);
    const sourceIndex = rest.findIndex((token) => !token.startsWith('-') && token.includes('.'));
    if (!alias || sourceIndex < 0) continue;
    entries.push({
      alias,
      source: rest[sourceIndex]!,
      args: [...runargs.flat(), ...rest.filter((_, i) => i !== sourceIndex)],
    });
  }
  throw new Error(`diaglist group <${group}> is never closed with </${group}>`);
}

const tokens = (text: string): string[] => text.split(/\s+/).filter(Boolean);

// ---------------------------------------------------------------------------------------------------
// §3.11 First divergence

export interface Divergence {
  /** 1-based. */
  readonly line: number;
  readonly reference: string;
  readonly actual: string;
}

/** Python's str.splitlines(): every line break it knows, no empty line after a final break. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Where two logs first differ, line by line; null when one is a line-for-line prefix of the other
 * (identical texts included).
 */
export function firstDivergence(reference: string, actual: string): Divergence | null {
  const ref = splitLines(reference);
  const act = splitLines(actual);
  const shared = Math.min(ref.length, act.length);
  for (let i = 0; i < shared; i++) if (ref[i] !== act[i]) return { line: i + 1, reference: ref[i]!, actual: act[i]! };
  return null;
}
