/**
 * A plan replay as Markdown: the `mace replay plans` text, one row per run and a total.
 */
import { markdownTable, type Column } from '../format/table.ts';
import { PLAN_RULES } from '../../mace/plan-check.ts';
import { describeOverrides, type PlanReplay, type PlanReplayRun, type ReplayCounts } from './plan-replay.ts';

const onOff = (on: boolean) => (on ? 'on' : 'off');

/** "way_rule 2, source_edit 1": the rules that fired, with their problem counts. */
function rulesText(counts: ReplayCounts): string {
  return (
    PLAN_RULES.filter((r) => counts.rules[r])
      .map((r) => `${r} ${counts.rules[r]}`)
      .join(', ') || '-'
  );
}

/** "check off→on": the recorded option and, where it changes, the counterfactual's. */
function optionsText(run: PlanReplayRun): string {
  const one = (name: string, recorded: boolean, replayed: boolean) =>
    `${name} ${onOff(recorded)}${recorded === replayed ? '' : `→${onOff(replayed)}`}`;
  return [
    one('check', run.recorded.plan_check, run.replayed.plan_check),
    one('fast path', run.recorded.fast_path, run.replayed.fast_path),
  ].join(', ');
}

type Row = Omit<ReplayCounts, 'rules'> & {
  readonly run: string;
  readonly method: string;
  readonly status: string;
  readonly options: string;
  readonly rules: string;
  readonly defines: string;
};

const COLUMNS: readonly Column<Row>[] = [
  { key: 'run' },
  { key: 'method' },
  { key: 'status' },
  { key: 'options', title: 'options (recorded→replayed)' },
  { key: 'replies' },
  { key: 'rejected' },
  { key: 'rules' },
  { key: 'defines', title: 'stripped/added' },
  { key: 'disagreements', title: 'differs' },
  { key: 'builds' },
  { key: 'saved_builds', title: 'saved builds' },
  { key: 'rejected_passed', title: 'rejected, passed' },
  { key: 'saved_machine_s', title: 'saved machine s', decimals: 1 },
  { key: 'saved_llm_usd', title: 'saved LLM $', decimals: 4 },
  { key: 'saved_usd', title: 'saved $', decimals: 4 },
  { key: 'added_builds', title: 'added builds' },
  { key: 'added_machine_s', title: 'added machine s', decimals: 1 },
  { key: 'caught_builds', title: 'caught' },
  { key: 'unmatched_iterations', title: 'unmatched' },
];

function row(counts: ReplayCounts, label: Pick<Row, 'run' | 'method' | 'status' | 'options'>): Row {
  return { ...counts, ...label, rules: rulesText(counts), defines: `${counts.stripped}/${counts.added}` };
}

/**
 * The replay as Markdown: what was replayed and how, a row per run with the total last, and how the
 * numbers are counted.
 */
export function renderPlanReplay(replay: PlanReplay): string {
  const { settings, total } = replay;
  const rows = replay.runs.map((r) =>
    row(r, {
      run: r.run_id,
      method: r.method ?? '-',
      status: r.skipped ? `not replayed: ${r.skipped}` : r.status,
      options: optionsText(r),
    }),
  );
  rows.push(row(total, { run: `total (${total.runs} runs)`, method: '', status: '', options: '' }));
  return [
    `# Plan replay\n\n` +
      `${total.replies} planner replies of ${total.runs - total.skipped_runs} runs in ${settings.file} went through the loop's plan check again, ` +
      `with no LLM call and no build.\n\n` +
      `- Checkout (define index, module paths): ${settings.checkout.root} (${settings.checkout.chosen}).\n` +
      `- Counterfactual: ${describeOverrides(settings.overrides)}, each run's other options as recorded.\n` +
      `- Machine time at $${settings.hourly_usd}/machine-hour.` +
      (total.skipped_runs ? `\n- ${total.skipped_runs} run(s) could not be replayed (see their status).` : ''),
    `## Per run\n\n${markdownTable(rows, COLUMNS)}`,
    `## How this is counted\n\n` +
      [
        "- **replies, rejected, rules, stripped/added**: every planner reply (plan and plan_retry) checked again against the run's history before that iteration; rejected counts replies with a problem, rules the problems.",
        '- **differs**: replies whose look differs from the plan_checks row the run wrote (runs that had the check on).',
        '- Each recorded iteration is replayed on its own; what would have followed a different decision is not simulated. A rejected plan is taken to come back with its other tasks unchanged; the fast path then collapses it if it is one design.',
        '- **saved builds**: recorded builds (task rows) the counterfactual does not make: rejected builds that failed, and builds the fast path collapses. A rejected build that passed is not saved (its plan would have come back and been built again): **rejected, passed**.',
        "- **saved machine s**: those builds' build and simulation seconds, plus the iteration's narrowing probes when every failed build of the iteration is saved.",
        "- **saved LLM $**: the calls those builds caused: their own task or rtl calls (every task call, when the fast path is turned on), and the iteration's triage when every failed build of it is saved. The re-plan that followed is not counted: a plan retry would take its place.",
        '- **saved $**: saved LLM $ plus saved machine seconds at the hourly rate.',
        '- **added builds**: builds the counterfactual makes that the record lacks; one of the same design as a recorded build is priced at its simulation time (and build time when builds are not reused), the rest are unpriced.',
        '- **caught**: with the check turned off, builds of tasks the check rejected or changed, which would have been built.',
        '- **unmatched**: iterations whose recorded plan is not what the recorded options make of its replies (a seeded fault, a check at the time that differs from this one, no planner reply); they are left as recorded.',
      ].join('\n'),
  ].join('\n\n');
}
