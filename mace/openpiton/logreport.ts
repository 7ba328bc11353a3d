/**
 * What a log says, in the adapter's terms, for a person reading `mace inspect log`: any sims build
 * output, sims run output, sim.log, status.log or regression summary. The verdict and failure tag
 * come from the same parsers the workspace decides with; the rest (which tiles hit which trap, every
 * verdict line of a log that holds several runs) is there to explain them.
 */
import type { StatusDiag, Verdict } from './artifacts.ts';
import {
  BuildOutputScanner,
  SimLogScanner,
  SimsDieScanner,
  coverageSummary,
  modelDir,
  regressSummary,
  scanText,
  statusDiag,
  verdictOf,
  type CoverageSummary,
  type LineScanner,
  type RegressSummary,
} from './parse.ts';

export interface VerdictLine {
  readonly verdict: Verdict | null;
  /** The number printed before `Simulation ->`, wherever the line starts. */
  readonly time: number | null;
  readonly text: string;
}

export interface BuildReport {
  /** A failure tag, or empty when the output shows none. */
  readonly failureReason: string;
  readonly errors: readonly string[];
  readonly errorCount: number;
  readonly pinNotFound: boolean;
  readonly modelDir: string | null;
  /** The executable the final link produced (`-o Vcmp_top`), when the output shows it. */
  readonly linked: string | null;
}

export interface LogReport {
  /** One sentence: what a person reading the log would say. */
  readonly summary: string;
  readonly verdict: Verdict | null;
  /** Simulated finish time on the first verdict line. */
  readonly finishTime: number | null;
  /** The FAIL message, such as `HIT BAD TRAP`. */
  readonly failReason: string;
  readonly maxCycles: number | null;
  readonly verdictLines: readonly VerdictLine[];
  readonly status: StatusDiag | null;
  /** Tiles (spc numbers) that printed each trap, in order of first appearance. */
  readonly goodTrapTiles: readonly number[];
  readonly badTrapTiles: readonly number[];
  readonly timeoutTiles: readonly number[];
  readonly build: BuildReport | null;
  readonly simsDied: readonly string[];
  readonly regression: RegressSummary | null;
  readonly coverage: CoverageSummary | null;
}

const VERDICT_LINE_RE = /(\d+)\s*:?\s*Simulation\s*->/;
const GOOD_TRAP_RE = /spc\((\d+)\)\s*thread\(\d+\)\s*Hit Good trap/;
const BAD_TRAP_RE = /Hit Bad trap\.\s*spc\((\d+)\)/;
const TIMEOUT_TILE_RE = /spc\((\d+)\)\s*thread\(\d+\)\s*->\s*timeout happen/;
const BUILD_SIGNS_RE =
  /sims: Building rtl model|-vlt_build\b|creating model directory|%(?:Error|Warning)|^\s*\S+:\d+:\d+:\s*(?:fatal )?error:/;
const LINKED_RE = /\s-o\s+(V\w+)\s*$/;

class DetailScanner implements LineScanner {
  readonly verdictLines: VerdictLine[] = [];
  readonly good: number[] = [];
  readonly bad: number[] = [];
  readonly timeouts: number[] = [];
  buildSigns = false;
  linked: string | null = null;

  push(line: string): void {
    const time = VERDICT_LINE_RE.exec(line);
    if (time) {
      const verdict = verdictOf(scanText(line, new SimLogScanner()).facts());
      this.verdictLines.push({ verdict, time: Number(time[1]), text: line.trim() });
    }
    noteTile(GOOD_TRAP_RE, line, this.good);
    noteTile(BAD_TRAP_RE, line, this.bad);
    noteTile(TIMEOUT_TILE_RE, line, this.timeouts);
    if (!this.buildSigns && BUILD_SIGNS_RE.test(line)) this.buildSigns = true;
    const linked = LINKED_RE.exec(line);
    if (linked) this.linked = linked[1]!;
  }
}

function noteTile(re: RegExp, line: string, into: number[]): void {
  const match = re.exec(line);
  if (match && !into.includes(Number(match[1]))) into.push(Number(match[1]));
}

export function describeLog(text: string): LogReport {
  const sim = new SimLogScanner();
  const build = new BuildOutputScanner();
  const die = new SimsDieScanner();
  const detail = new DetailScanner();
  for (const line of text.split(/\r?\n/)) for (const scanner of [sim, build, die, detail]) scanner.push(line);

  const facts = sim.facts();
  const verdict = verdictOf(facts);
  const buildFacts = build.facts();
  const regression = regressSummary(text);
  const coverage = coverageSummary(text);
  const report: Omit<LogReport, 'summary'> = {
    verdict,
    finishTime: facts.simTime ?? detail.verdictLines[0]?.time ?? null,
    failReason: facts.failMessage?.trim() ?? '',
    maxCycles: facts.maxCycles,
    verdictLines: detail.verdictLines,
    status: statusDiag(text),
    goodTrapTiles: detail.good,
    badTrapTiles: detail.bad,
    timeoutTiles: detail.timeouts,
    build: detail.buildSigns
      ? {
          failureReason: buildFacts.failureReason,
          errors: buildFacts.errors,
          errorCount: buildFacts.errorCount,
          pinNotFound: buildFacts.pinNotFound,
          modelDir: modelDir(text),
          linked: detail.linked,
        }
      : null,
    simsDied: die.messages,
    regression: regression.passed === null && regression.diagCount === null ? null : regression,
    coverage: coverage.total === null ? null : coverage,
  };
  return { summary: summarize(report), ...report };
}

/** `tile 2` or `tiles 0, 1, 3`. */
export const tileList = (list: readonly number[]): string =>
  `${list.length === 1 ? 'tile' : 'tiles'} ${list.join(', ')}`;

function summarize(r: Omit<LogReport, 'summary'>): string {
  if (r.regression) {
    const passed = r.regression.counts.PASS;
    const of = r.regression.diagCount;
    const state =
      r.regression.passed === null
        ? 'regression summary (no final verdict line)'
        : `regression ${r.regression.passed ? 'passed' : 'failed'}`;
    return passed !== undefined && of !== null ? `${state}: ${passed} of ${of} diags passed` : state;
  }
  if (r.verdict) {
    // In a log of several runs, name the time of the line that decided, not of the first line.
    const decisive = r.verdictLines.find((line) => line.verdict === r.verdict)?.time ?? r.finishTime;
    const at = decisive !== null ? ` at ${decisive}` : '';
    const what =
      r.verdict === 'pass'
        ? `simulation passed${at}`
        : r.verdict === 'fail'
          ? `simulation failed${at}: ${r.failReason || 'FAIL'}${r.badTrapTiles.length ? ` on ${tileList(r.badTrapTiles)}` : ''}`
          : r.verdict === 'timeout'
            ? `simulation timed out${at}${r.failReason ? ` (${r.failReason})` : ' (monitor timeout, no verdict line)'}`
            : `simulation stopped at max cycles = ${r.maxCycles}${at}`;
    const counts = verdictCounts(r.verdictLines);
    if (counts.size > 1)
      return `${what}; the log holds ${r.verdictLines.length} verdict lines (${[...counts].map(([v, n]) => `${n} ${v}`).join(', ')}) and a failure decides`;
    return r.verdictLines.length > 1
      ? `${what}; the log holds ${r.verdictLines.length} verdict lines, all ${r.verdict}`
      : what;
  }
  if (r.build && r.build.failureReason && !r.build.failureReason.startsWith('sims_die:')) {
    const errors = r.build.errorCount
      ? ` (${r.build.errorCount} error line${r.build.errorCount === 1 ? '' : 's'}, first: ${r.build.errors[0]})`
      : '';
    return `build failed: ${r.build.failureReason}${errors}`;
  }
  if (r.simsDied.length > 0)
    return `sims died: ${r.simsDied[0]}${r.simsDied.length > 1 ? ` (and ${r.simsDied.length - 1} more)` : ''}`;
  if (r.build)
    return r.build.linked
      ? `build finished: ${r.build.linked} linked, no errors`
      : 'build output with no errors and no final link';
  if (r.status) return `no verdict line; status.log says ${r.status.status}`;
  if (r.coverage) return `coverage ${r.coverage.hit}/${r.coverage.total} lines (${r.coverage.percent}%)`;
  return 'no verdict, status, build error or sims message found';
}

function verdictCounts(lines: readonly VerdictLine[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const key = line.verdict ?? 'unclassified';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
