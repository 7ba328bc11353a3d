/**
 * An analysis as Markdown (the `mace report` text) and its run rows as CSV.
 */
import { markdownTable } from '../format/table.ts';
import type { Report } from './analyse.ts';
import type { RunRow } from './runs.ts';
import type { Interval, Proportion } from './stats.ts';
import type { PairedDifference, TimeToPass } from './tables.ts';

function withInterval(value: number | null, ci: Interval | null, decimals: number): string {
  if (value === null) return '-';
  return ci
    ? `${value.toFixed(decimals)} [${ci.lo.toFixed(decimals)}, ${ci.hi.toFixed(decimals)}]`
    : value.toFixed(decimals);
}

/** "3/4 75% [30, 95]": passes, rate and its Wilson interval in percent. */
export function formatRate(rate: Proportion | null): string {
  if (!rate) return '-';
  const pct = (x: number) => Math.round(x * 100);
  return `${rate.successes}/${rate.n} ${pct(rate.rate)}% [${pct(rate.lo)}, ${pct(rate.hi)}]`;
}

/** "≥3600.0" when the median lies on a failure counted at its budget. */
export function formatTime(t: TimeToPass, decimals = 1): string {
  if (t.median_s === null) return '-';
  return `${t.censored ? '≥' : ''}${withInterval(t.median_s, t.ci, decimals)}`;
}

const formatDifference = (d: PairedDifference, decimals: number) => withInterval(d.median, d.ci, decimals);

const formatP = (p: number | null) => (p === null ? '-' : p < 0.0001 ? p.toExponential(1) : p.toFixed(4));

/** The report, every section, as Markdown. */
export function renderMarkdown(analysis: Report): string {
  const { settings, counts } = analysis;
  const ref = settings.reference;
  const sections: string[] = [
    `# MACE-TS report\n\n` +
      `${counts.counted} runs counted of ${counts.runs} labelled in ${settings.files.join(', ')}. ` +
      `Reference method: ${ref}. Compute at $${settings.hourly_usd}/machine-hour. ` +
      `Intervals are 95%: Wilson for pass rates; percentile bootstrap (${settings.resamples} resamples, seed ${settings.seed}) for medians.`,
  ];
  const bringUp = analysis.cells;
  if (bringUp.length) {
    sections.push(
      `## Per task and method\n\n` +
        markdownTable(
          bringUp.map((c) => ({
            task: c.task,
            method: c.method,
            runs: c.runs,
            passed: formatRate(c.pass_rate),
            time_to_pass: formatTime(c.time_to_pass),
            passed_time_s: c.passed_time_s,
            passed_time_iqr_s: c.passed_time_iqr_s,
            false_accepts: c.false_accepts,
            // Spread last: V8 builds an object literal that opens with a spread several times slower.
            ...c.medians,
          })),
          [
            { key: 'task' },
            { key: 'method' },
            { key: 'runs' },
            { key: 'passed', title: 'passed [95% CI]' },
            { key: 'time_to_pass', title: 'time to pass s [95% CI]' },
            { key: 'passed_time_s', title: 'passed runs s', decimals: 1 },
            { key: 'passed_time_iqr_s', title: 'IQR s', decimals: 1 },
            { key: 'machine_s', decimals: 1 },
            { key: 'builds', decimals: 1 },
            { key: 'fresh_builds', decimals: 1 },
            { key: 'simulations', decimals: 1 },
            { key: 'llm_calls', decimals: 1 },
            { key: 'thinking_tokens', decimals: 0 },
            { key: 'llm_usd', title: 'LLM $', decimals: 4 },
            { key: 'compute_usd', title: 'compute $', decimals: 4 },
            { key: 'false_accepts' },
          ],
        ),
    );
    sections.push(
      `## Per method\n\n` +
        markdownTable(analysis.methods, [
          { key: 'method' },
          { key: 'kind' },
          { key: 'tasks' },
          { key: 'runs' },
          { key: 'pass_rate', title: 'passed [95% CI]', format: (_, m) => formatRate(m.pass_rate) },
          { key: 'time_to_pass', title: 'time to pass s [95% CI]', format: (_, m) => formatTime(m.time_to_pass) },
          { key: 'passed_time_s', title: 'passed runs s', decimals: 1 },
          { key: 'machine_s', decimals: 1 },
          { key: 'llm_usd_total', title: 'LLM $', decimals: 4 },
          { key: 'compute_usd_total', title: 'compute $', decimals: 4 },
          { key: 'usd_per_pass', title: '$ per pass', decimals: 4 },
        ]),
    );
    sections.push(againstReference(analysis));
  }
  const ablations = analysis.comparisons.filter((c) => c.changes.length);
  if (ablations.length) {
    sections.push(
      `## Ablations against ${ref}\n\nPaired by task; each difference is the median over tasks of (ablation − ${ref}) ` +
        `cell medians, with a bootstrap 95% interval; p is the time-to-pass test above.\n\n` +
        markdownTable(
          ablations.map((c) => ({
            method: c.method,
            changes: c.changes.join(', '),
            tasks: c.tasks,
            passed: formatRate(c.pass_rate),
            reference_passed: formatRate(c.reference_pass_rate),
            time: formatDifference(c.time_difference_s, 1),
            builds: formatDifference(c.builds_difference, 1),
            llm_calls: formatDifference(c.llm_calls_difference, 1),
            usd: formatDifference(c.total_usd_difference, 4),
            p: formatP(c.tasks ? c.test.p : null),
          })),
          [
            { key: 'method' },
            { key: 'changes' },
            { key: 'tasks' },
            { key: 'passed' },
            { key: 'reference_passed', title: `${ref} passed` },
            { key: 'time', title: 'Δ time s' },
            { key: 'builds', title: 'Δ builds' },
            { key: 'llm_calls', title: 'Δ LLM calls' },
            { key: 'usd', title: 'Δ $' },
            { key: 'p' },
          ],
        ),
    );
  }
  if (analysis.recovery.length) {
    sections.push(
      `## Recovery from seeded faults\n\nThe first plan is broken; recovered = the run passed anyway. ` +
        `Caught by: a plan check of iteration 0 that rejected or changed the plan, else the stage recorded ` +
        `on iteration 0's failures.\n\n` +
        markdownTable(analysis.recovery, [
          { key: 'fault' },
          { key: 'method' },
          { key: 'tasks' },
          { key: 'runs' },
          { key: 'recovered', title: 'recovered [95% CI]', format: (_, r) => formatRate(r.recovered) },
          { key: 'iterations_to_recover', title: 'iterations', decimals: 1 },
          {
            key: 'caught_by',
            title: 'caught by',
            format: (_, r) =>
              Object.entries(r.caught_by)
                .filter(([, n]) => n > 0)
                .map(([stage, n]) => `${stage} ${n}`)
                .join(', '),
          },
        ]),
    );
  }
  if (analysis.fault_checks.length) {
    sections.push(
      `## Fault checks\n\nThe expert configuration with the fault, expected to fail on every task it applies to.\n\n` +
        markdownTable(analysis.fault_checks, [
          { key: 'fault' },
          { key: 'method' },
          { key: 'tasks' },
          { key: 'runs' },
          { key: 'failed' },
          { key: 'verified' },
        ]),
    );
  }
  if (analysis.codesign.summary.length) {
    sections.push(
      `## Co-design searches\n\n` +
        markdownTable(analysis.codesign.summary, [
          { key: 'task' },
          { key: 'method' },
          { key: 'searches' },
          { key: 'best_sim_time', decimals: 0 },
          { key: 'best_known', decimals: 0 },
          { key: 'reached', title: 'within 5%' },
          { key: 'sims_to_near_best', decimals: 1 },
          { key: 'feasible_share', decimals: 2 },
          { key: 'rejected' },
        ]),
    );
  }
  sections.push(notes(analysis));
  return `${sections.join('\n\n')}\n`;
}

function againstReference(analysis: Report): string {
  const ref = analysis.settings.reference;
  const title = `## Against ${ref}, time to pass`;
  if (!analysis.kinds[ref]) return `${title}\n\nNo ${ref} runs.`;
  if (!analysis.comparisons.length) return `${title}\n\nNo other method ran the same tasks.`;
  const rows = analysis.comparisons.map((c) => ({
    method: c.method,
    tasks: c.tasks,
    non_zero: c.test.n,
    difference: formatDifference(c.time_difference_s, 1),
    w_plus: c.test.wPlus,
    p: formatP(c.tasks ? c.test.p : null),
    p_holm: formatP(c.p_holm),
    smallest_p: formatP(c.test.minimumP),
  }));
  return (
    `${title}\n\nPer task, the median time to pass of each method (failures counted at their budget) minus ${ref}'s; ` +
    `exact two-sided Wilcoxon signed-rank test over tasks (differences rounded to ` +
    `${analysis.settings.difference_precision_s} s, zeros dropped), Holm-adjusted over the methods.\n\n` +
    markdownTable(rows, [
      { key: 'method' },
      { key: 'tasks' },
      { key: 'non_zero', title: 'non-zero' },
      { key: 'difference', title: 'median difference s [95% CI]' },
      { key: 'w_plus', title: 'W+', decimals: 1 },
      { key: 'p' },
      { key: 'p_holm', title: 'p (Holm)' },
      { key: 'smallest_p', title: 'smallest p' },
    ])
  );
}

function notes(analysis: Report): string {
  const { counts } = analysis;
  const lines = [
    `Runs left out because a later run of the same task, method, and repeat replaced them: ${counts.replaced}` +
      (counts.replaced_after_edit ? ` (${counts.replaced_after_edit} after their job's definition changed).` : '.'),
  ];
  if (counts.duplicates) lines.push(`Runs found in more than one database and counted once: ${counts.duplicates}.`);
  for (const warning of analysis.warnings) lines.push(`Warning: ${warning}`);
  return lines.join('\n\n');
}

/** Every run row as CSV (RFC 4180), replaced and co-design runs included; the header is RunRow's fields. */
export function runRowsCsv(rows: readonly RunRow[]): string {
  if (!rows.length) return '';
  const header = Object.keys(rows[0]!) as (keyof RunRow)[];
  const cell = (value: unknown): string => {
    if (value === null || value === undefined) return '';
    const text = value instanceof Date ? value.toISOString() : String(value);
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [header.join(','), ...rows.map((row) => header.map((key) => cell(row[key])).join(','))].join('\n') + '\n';
}
