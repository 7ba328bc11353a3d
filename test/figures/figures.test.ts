/**
 * Every figure rendered from the reference database and from the synthetic study: text where the
 * axis labels belong in every PNG, and each figure's data file equal to the report's numbers
 * (`mace report --json` on the same database). The committed results/figures must match what the
 * code draws from the committed database today.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, before } from 'node:test';
import { PNG } from 'pngjs';
import { Resvg } from '@resvg/resvg-js';
import type { Analysis, PlanReplay, ReplayOption, RunRow, RunTimeline } from '../../harness/analysis/index.ts';
import {
  REPLAY_OPTIONS,
  chooseReplayCheckout,
  counted,
  replayPlans,
  runTimeline,
  showcaseRun,
} from '../../harness/analysis/index.ts';
import { FIGURE_NAMES, methodColours, FIXED_METHOD_COLOURS } from '../../harness/figures/index.ts';
import { Store } from '../../mace/store/store.ts';
import { smallStudy, writeStudy } from '../analysis/study.ts';
import { ROOT, runCli, tempDir } from '../helpers.ts';
import { axisTextBoxes, inkPixels, readPng } from './axis-text.ts';

const REFERENCE = join(ROOT, 'results', 'quickstart.duckdb');
const COMMITTED = join(ROOT, 'results', 'figures');

type Datasets = Record<string, Record<string, unknown>[]>;
const dataOf = (dir: string, name: string) =>
  JSON.parse(readFileSync(join(dir, `${name}.data.json`), 'utf8')) as { datasets: Datasets; settings: unknown };

/** The report's numbers, as `mace report --json` prints them. */
async function report(db: string): Promise<Analysis> {
  const { code, stdout, stderr } = await runCli('report', db, '--json');
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout) as Analysis;
}

async function drawAll(
  db: string,
  dir: string,
  formats = 'svg,png',
): Promise<{ dir: string; manifest: { figures: { name: string }[]; skipped: { name: string }[] } }> {
  const { code, stdout, stderr } = await runCli('figures', db, '--out', dir, '--format', formats, '--json');
  assert.equal(code, 0, stderr);
  assert.equal(stderr, '', 'Vega-Lite warned about no figure');
  return { dir, manifest: JSON.parse(stdout) };
}

const close = (actual: unknown, expected: unknown, what: string) =>
  typeof expected === 'number' && typeof actual === 'number'
    ? assert.ok(
        Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)),
        `${what}: ${actual} ≠ ${expected}`,
      )
    : assert.equal(actual, expected, what);

/** `mace replay plans DB --options SWITCH=on|off` for both switches both ways, keyed "plan_check off". */
async function replaysOf(db: string): Promise<Map<string, PlanReplay>> {
  const checkout = await chooseReplayCheckout();
  const replays = new Map<string, PlanReplay>();
  for (const option of REPLAY_OPTIONS)
    for (const on of [true, false])
      replays.set(`${option} ${on ? 'on' : 'off'}`, await replayPlans(db, { checkout, overrides: { [option]: on } }));
  return replays;
}

/** Each figure's data file against the report, row by row (plan_replay against plan replay's own numbers). */
function checkAgainstReport(
  dir: string,
  names: readonly string[],
  r: Analysis,
  timeline: RunTimeline | undefined,
  replays?: Map<string, PlanReplay>,
): void {
  const byMethod = new Map(r.methods.map((m) => [m.method, m]));
  for (const name of names) {
    const { datasets } = dataOf(dir, name);
    if (name === 'pass_rate') {
      for (const row of datasets.pass_rate!) {
        const rate =
          row.scope === 'all tasks'
            ? byMethod.get(row.method as string)!.pass_rate!
            : r.cells.find((c) => c.task === row.scope && c.method === row.method)!.pass_rate!;
        for (const [k, v] of [
          ['rate', rate.rate],
          ['lo', rate.lo],
          ['hi', rate.hi],
          ['passed', rate.successes],
          ['runs', rate.n],
        ] as const)
          close(row[k], v, `pass_rate ${row.scope} ${row.method} ${k}`);
      }
      assert.equal(datasets.pass_rate!.length, r.methods.length + r.cells.length);
    } else if (name === 'time_to_pass') {
      for (const row of datasets.summary!) {
        const t = byMethod.get(row.method as string)!.time_to_pass;
        close(row.median_s, t.median_s, `median ${row.method}`);
        close(row.lo, t.ci?.lo ?? null, `lo ${row.method}`);
        close(row.hi, t.ci?.hi ?? null, `hi ${row.method}`);
      }
      const counted = r.runs.filter(
        (x) => !x.replaced && x.wall_s !== null && x.status !== 'running' && byMethod.has(x.method),
      );
      assert.equal(datasets.runs!.length, counted.length);
      for (const row of datasets.runs!) {
        const run = counted.find((x) => x.run_id === row.run_id)!;
        close(row.time_s, run.time_to_pass_s, `time ${row.run_id}`);
        assert.equal(row.passed, run.passed);
      }
    } else if (name === 'ablations') {
      const ablations = r.comparisons.filter((c) => c.changes.length && c.tasks);
      assert.equal(datasets.summary!.length, ablations.length);
      for (const c of ablations) {
        const row = datasets.summary!.find((s) => s.method === c.method)!;
        close(row.median_s, c.time_difference_s.median, `Δ ${c.method}`);
        close(row.p, c.test.p, `p ${c.method}`);
        close(row.p_holm, c.p_holm, `Holm ${c.method}`);
        close(row.lo, c.time_difference_s.ci?.lo ?? null, `lo ${c.method}`);
        for (const t of c.per_task) {
          const point = datasets.per_task!.find((p) => p.method === c.method && p.task === t.task)!;
          close(point.difference_s, t.method_s - t.reference_s, `Δ ${c.method} ${t.task}`);
        }
      }
    } else if (name === 'recovery') {
      for (const rec of r.recovery) {
        const row = datasets.recovered!.find((x) => x.fault === rec.fault && x.method === rec.method)!;
        close(row.rate, rec.recovered!.rate, `recovered ${rec.method}`);
        close(row.iterations_to_recover, rec.iterations_to_recover, `iterations ${rec.method}`);
        for (const [stage, n] of Object.entries(rec.caught_by)) {
          const caught = datasets.caught!.find(
            (x) => x.fault === rec.fault && x.method === rec.method && x.stage === stage,
          );
          close(caught?.runs ?? 0, n, `caught ${rec.method} ${stage}`);
        }
      }
    } else if (name === 'cost') {
      for (const row of datasets.cost!) {
        const perPass = byMethod.get(row.method as string)!.per_pass as unknown as Record<string, number>;
        close(row.value, perPass[row.component as string], `cost ${row.method} ${row.component}`);
      }
    } else if (name === 'timeline') {
      assert.ok(timeline);
      assert.equal(datasets.bars!.length, timeline.bars.length);
      timeline.bars.forEach((b, i) => {
        close(datasets.bars![i]!.start_s, b.start_s, `bar ${i} start`);
        close(datasets.bars![i]!.end_s, b.end_s, `bar ${i} end`);
      });
    } else if (name === 'plan_replay') {
      assert.ok(replays);
      // Every counted run with a usable planner reply, once per switch.
      const replayed = (run: RunRow, key: string) => replays.get(key)!.runs.find((x) => x.run_id === run.run_id)!;
      const shown = r.runs.filter((run) => {
        const any = replayed(run, 'plan_check on');
        return counted(run) && any.replies > any.unusable;
      });
      assert.ok(shown.length > 0);
      assert.equal(datasets.savings!.length, shown.length * REPLAY_OPTIONS.length);
      for (const run of shown)
        for (const option of REPLAY_OPTIONS) {
          const row = datasets.savings!.find((x) => x.run_id === run.run_id && x.switch === option)!;
          const on = replayed(run, `${option} on`).recorded[option as ReplayOption];
          const counterfactual = `${option} ${on ? 'off' : 'on'}`;
          const c = replayed(run, counterfactual);
          const what = `plan_replay ${run.run_id} ${counterfactual}`;
          assert.equal(row.on, on, what);
          assert.equal(row.counterfactual, counterfactual, what);
          assert.equal(row.method, run.method, what);
          if (!on) {
            // Off in the run: what turning it on would have saved.
            close(row.builds, c.saved_builds, `${what} builds`);
            close(row.usd, c.saved_usd, `${what} usd`);
          } else if (option === 'plan_check') {
            // The check's caught builds: never built, so never priced.
            close(row.builds, c.caught_builds, `${what} builds`);
            close(row.unpriced_builds, c.caught_builds, `${what} unpriced`);
            assert.equal(row.usd, null, what);
          } else {
            // The builds the fast path collapsed away, at their recorded twins' machine time.
            close(row.builds, c.added_builds, `${what} builds`);
            close(row.unpriced_builds, c.unpriced_builds, `${what} unpriced`);
            close(row.task_calls, c.added_task_calls, `${what} task calls`);
            close(
              row.usd,
              c.added_builds > c.unpriced_builds ? (c.added_machine_s / 3600) * r.settings.hourly_usd : null,
              `${what} usd`,
            );
          }
        }
    } else if (name === 'codesign') {
      for (const s of r.codesign.searches.filter((x) => !x.replaced)) {
        const points = datasets.curves!.filter((p) => p.run_id === s.run_id).map((p) => p.best_sim_time);
        assert.deepEqual(
          points,
          s.curve.filter((b) => b !== null),
        );
      }
    } else if (name === 'codesign_pareto') {
      const rows = datasets.designs!;
      const designs = rows.filter((p) => p.kind === 'design');
      for (const s of r.codesign.searches.filter((x) => !x.replaced))
        assert.deepEqual(
          designs.filter((p) => p.run_id === s.run_id).map((p) => [p.area_um2, p.sim_time]),
          s.passed.filter((p) => p.area_um2 !== null).map((p) => [p.area_um2, p.sim_time]),
        );
      const front = rows.filter((p) => p.kind === 'front');
      assert.ok(front.length > 0);
      const beats = (a: (typeof rows)[number], b: (typeof rows)[number]) =>
        a.task === b.task &&
        Number(a.area_um2) <= Number(b.area_um2) &&
        Number(a.sim_time) <= Number(b.sim_time) &&
        (a.area_um2 !== b.area_um2 || a.sim_time !== b.sim_time);
      // The front is exactly the designs no other design beats on both area and time.
      for (const f of front) assert.ok(!designs.some((d) => beats(d, f)), `front point ${f.area_um2} is beaten`);
      for (const d of designs)
        assert.ok(
          front.some((f) => f.task === d.task && f.area_um2 === d.area_um2 && f.sim_time === d.sim_time) ||
            designs.some((e) => beats(e, d)),
          `design ${d.area_um2},${d.sim_time} is neither on the front nor beaten`,
        );
    } else {
      assert.fail(`no check for figure ${name}: add one`);
    }
  }
}

/** Every PNG has ink in the box of each axis label and title. */
async function checkAxisText(dir: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const png = readPng(join(dir, `${name}.png`));
    const boxes = await axisTextBoxes(join(dir, `${name}.vl.json`));
    assert.ok(
      boxes.some((b) => b.role === 'axis-label'),
      `${name} has axis labels`,
    );
    for (const box of boxes) {
      assert.ok(inkPixels(png, box) >= 4, `${name}.png: no text where the ${box.role} "${box.text}" belongs`);
    }
  }
}

describe('figures', () => {
  describe('from the synthetic study (failures, an ablation, a seeded fault, a co-design search)', () => {
    const dir = tempDir('mace-figures-');
    const db = join(dir, 'study.duckdb');
    let drawn: Awaited<ReturnType<typeof drawAll>>;
    before(async () => {
      await writeStudy(await Store.open(db), smallStudy());
      drawn = await drawAll(db, join(dir, 'figures'));
    });

    it('draws every figure but plan replay (no planner reply holds a plan) and the timeline (no task times)', () => {
      assert.deepEqual(
        drawn.manifest.figures.map((f) => f.name),
        FIGURE_NAMES.filter((n) => n !== 'timeline' && n !== 'plan_replay'),
      );
      assert.deepEqual(
        drawn.manifest.skipped.map((f) => f.name),
        ['plan_replay', 'timeline'],
      );
    });

    it('writes data files that agree with the report', async () => {
      checkAgainstReport(
        drawn.dir,
        drawn.manifest.figures.map((f) => f.name),
        await report(db),
        undefined,
      );
    });

    it('puts text where every axis label belongs', async () => {
      await checkAxisText(
        drawn.dir,
        drawn.manifest.figures.map((f) => f.name),
      );
    });

    it('would catch a PNG drawn without fonts: the same check finds no text there', async () => {
      const svg = readFileSync(join(drawn.dir, 'pass_rate.svg'), 'utf8');
      const bare = new Resvg(svg, {
        fitTo: { mode: 'zoom', value: 300 / 96 },
        background: 'white',
        font: { loadSystemFonts: false },
      });
      const png = PNG.sync.read(bare.render().asPng());
      const labels = (await axisTextBoxes(join(drawn.dir, 'pass_rate.vl.json'))).filter((b) => b.role === 'axis-label');
      assert.ok(labels.length > 0);
      assert.ok(labels.every((b) => inkPixels(png, b) === 0));
    });
  });

  describe('from the reference database', () => {
    const dir = tempDir('mace-figures-');
    let drawn: Awaited<ReturnType<typeof drawAll>>;
    before(async () => {
      drawn = await drawAll(REFERENCE, dir, 'svg,png,outlined.svg');
    });

    it('draws plan replay: the reference runs recorded planner replies', () => {
      assert.ok(drawn.manifest.figures.some((f) => f.name === 'plan_replay'));
    });

    it('writes data files that agree with the report, the timeline with the run it shows', async () => {
      const r = await report(REFERENCE);
      const run = showcaseRun(r)!;
      checkAgainstReport(
        drawn.dir,
        drawn.manifest.figures.map((f) => f.name),
        r,
        await runTimeline(REFERENCE, run.run_id),
        await replaysOf(REFERENCE),
      );
    });

    it('puts text where every axis label belongs', async () => {
      await checkAxisText(
        drawn.dir,
        drawn.manifest.figures.map((f) => f.name),
      );
    });

    it('outlines the text of the outlined SVG', () => {
      const outlined = readFileSync(join(drawn.dir, 'pass_rate.outlined.svg'), 'utf8');
      assert.doesNotMatch(outlined, /<text/);
      assert.match(readFileSync(join(drawn.dir, 'pass_rate.svg'), 'utf8'), /<text/);
    });

    it('matches the committed results/figures (regenerate with `npm run results`)', () => {
      for (const { name } of drawn.manifest.figures) {
        for (const file of [`${name}.data.json`, `${name}.vl.json`]) {
          const committed = join(COMMITTED, file);
          assert.ok(existsSync(committed), `results/figures/${file} is missing`);
          const strip = (text: string) => JSON.stringify({ ...JSON.parse(text), settings: undefined });
          assert.equal(
            strip(readFileSync(join(drawn.dir, file), 'utf8')),
            strip(readFileSync(committed, 'utf8')),
            file,
          );
        }
        assert.ok(existsSync(join(COMMITTED, `${name}.png`)), `results/figures/${name}.png is missing`);
      }
    });
  });
});

describe('method colours', () => {
  it('keeps the fixed colours and gives every other method of a study its own', () => {
    const methods = [
      'mace',
      'expert',
      'one_shot',
      'retry_agent',
      'no_triage',
      'triage_off',
      'no_plan_check',
      'no_reuse',
      'no_narrowing',
    ];
    const colours = methodColours(methods);
    for (const [method, colour] of Object.entries(FIXED_METHOD_COLOURS)) assert.equal(colours.get(method), colour);
    assert.equal(new Set(colours.values()).size, methods.length);
  });

  it('gives a method the same colour whatever order or company it comes in', () => {
    const a = methodColours(['no_triage', 'mace', 'no_reuse']);
    const b = methodColours(['no_reuse', 'no_triage', 'mace']);
    assert.deepEqual([...a].sort(), [...b].sort());
    assert.equal(methodColours(['mace', 'no_triage']).get('no_triage'), methodColours(['no_triage']).get('no_triage'));
  });
});
