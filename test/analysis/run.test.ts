/**
 * The per-run views the figures and notebooks read: a run's timeline (against the reference
 * database, whose runs ran real loops on offline checkouts) and spending per passed run.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyseFiles, runDetails, runTimeline, showcaseRun } from '../../harness/analysis/index.ts';
import { query } from '../../mace/store/readers.ts';
import { Store } from '../../mace/store/store.ts';
import { ROOT, tempDir } from '../helpers.ts';
import { smallStudy, writeStudy } from './study.ts';

const REFERENCE = join(ROOT, 'results', 'quickstart.duckdb');

describe('run timeline', () => {
  it('lays out every timed iteration, task, probe and LLM call of a run from its start', async () => {
    const analysis = await analyseFiles([REFERENCE]);
    const run = showcaseRun(analysis)!;
    assert.equal(run.method, 'mace');
    const timeline = (await runTimeline(REFERENCE, run.run_id))!;
    const store = await Store.openForRead(REFERENCE);
    const [counts] = await query<Record<string, number>>(
      store,
      `SELECT (SELECT count(*) FROM iterations WHERE run_id = $1)::INTEGER AS iteration,
        (SELECT count(*) FROM tasks WHERE run_id = $1)::INTEGER AS task,
        (SELECT count(*) FROM probes WHERE run_id = $1)::INTEGER AS probe,
        (SELECT count(*) FROM llm_calls WHERE run_id = $1)::INTEGER AS llm_call`,
      [run.run_id],
    );
    for (const kind of ['iteration', 'task', 'probe', 'llm_call'] as const) {
      assert.equal(timeline.bars.filter((b) => b.kind === kind).length, counts![kind], kind);
    }
    assert.equal(timeline.untimed, 0);
    for (const bar of timeline.bars) {
      assert.ok(bar.start_s >= 0 && bar.end_s >= bar.start_s, `${bar.label} within the run`);
      assert.ok(bar.end_s <= timeline.wall_s! + 1e-6, `${bar.label} ends before the run does`);
    }
    assert.ok(timeline.bars.filter((b) => b.kind === 'task').every((b) => b.checkout?.includes('checkout-')));
    const trace = (await runDetails(REFERENCE, run.run_id))!;
    assert.equal(trace.iterations.length, counts!.iteration);
  });

  it('is undefined for a run the database does not hold', async () => {
    assert.equal(await runTimeline(REFERENCE, 'no-such-run'), undefined);
  });
});

describe('spending per passed run', () => {
  it("divides each method's totals over all its runs by its passes", async () => {
    const db = join(tempDir(), 'study.duckdb');
    await writeStudy(await Store.open(db), smallStudy());
    const analysis = await analyseFiles([db]);
    // no_triage: 7 counted runs (one more never finished), 6 passed; one $0.05 call of 100 input and
    // 10 output tokens each; one task of 50 s build + 5 s run each.
    const perPass = analysis.methods.find((m) => m.method === 'no_triage')!.per_pass!;
    assert.ok(Math.abs(perPass.llm_usd - (7 * 0.05) / 6) < 1e-12);
    assert.ok(Math.abs(perPass.input_tokens - 700 / 6) < 1e-9);
    assert.ok(Math.abs(perPass.output_tokens - 70 / 6) < 1e-9);
    assert.equal(perPass.thinking_tokens, 0);
    assert.ok(Math.abs(perPass.machine_s - (7 * 55) / 6) < 1e-9);
    assert.equal(analysis.methods.find((m) => m.method === 'faultcheck_drop_bist')!.per_pass, null);
  });
});
