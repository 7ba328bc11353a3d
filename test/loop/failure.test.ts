/**
 * Failure analysis end to end on the offline checkouts with the scripted agent: seeded faults broken
 * into the first plan and recovered, narrowing's verdicts, triage modes, raw evidence, RTL edits and
 * carried edits, the post-mortem, and the trace that shows them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { renderTrace } from '../../harness/cli/trace.ts';
import { DEFAULT_CACHES } from '../../mace/openpiton/geometry.ts';
import { applyFiles, FAULT_BACKUP_DIR, restorePending } from '../../mace/openpiton/edits.ts';
import { simulate } from '../../mace/openpiton/offline/model/behaviour.ts';
import { findProgram } from '../../mace/openpiton/offline/model/catalog.ts';
import { makeTask, type Task } from '../../mace/spec.ts';
import { closeAllStores } from '../../mace/store/store.ts';
import { OfflineLab, arianeSpec, picoSpec } from './support.ts';

after(closeAllStores);
const lab = new OfflineLab();

/** A plan hook that breaks the config and workload tasks of the first plan only. */
const breakFirstPlan =
  (change: (task: Task) => Task) =>
  (iteration: number, tasks: Task[]): Task[] =>
    iteration === 0 ? tasks.map((t) => (t.kind === 'config' || t.kind === 'workload' ? change(t) : t)) : tasks;

const addDefine = (define: string) => (t: Task) => ({
  ...t,
  config_rtl: [...new Set([...(t.config_rtl ?? []), define])].sort(),
});
const PICORV32 = 'piton/design/chip/tile/pico/rtl/picorv32.v';

/** Plant `old` → `new` edits in every lab checkout for the duration of `fn` (restored after). */
async function withFaults<T>(edits: readonly (readonly [string, string])[], fn: () => Promise<T>): Promise<T> {
  const roots = await lab.checkoutRoots();
  for (const root of roots) {
    let text = readFileSync(join(root, PICORV32), 'utf8');
    for (const [from, to] of edits) {
      assert.equal(text.split(from).length, 2, `${from} occurs once`);
      text = text.replace(from, to);
    }
    applyFiles(root, new Map([[PICORV32, text]]), FAULT_BACKUP_DIR);
  }
  try {
    return await fn();
  } finally {
    for (const root of roots) restorePending(root, FAULT_BACKUP_DIR);
  }
}
const TYPO = ['(mem_valid && mem_ready) ||', '(mem_valid && mem_readyx) ||'] as const;
const ADDER = ['reg_op1 - reg_op2 : reg_op1 + reg_op2;', "reg_op1 - reg_op2 : reg_op1 + reg_op2 + 32'd1;"] as const;

describe('seeded faults: broken into the first plan, then recovered', () => {
  it('fpga_synth: narrowing names PITON_FPGA_SYNTH as the culprit and triage is skipped', async () => {
    const { outcome, trace } = await lab.run(picoSpec(), { planHook: breakFirstPlan(addDefine('PITON_FPGA_SYNTH')) });
    assert.equal(outcome.status, 'passed', outcome.reason);
    assert.equal(trace.iterations.length, 2);
    const [first] = trace.iterations;
    const failed = first!.tasks.find((t) => !t.passed)!;
    assert.equal(failed.failure_reason, 'verilog_error');
    assert.deepEqual(failed.failure, {
      ...failed.failure!,
      diagnosis: 'config_change',
      fix: 'remove the PITON_FPGA_SYNTH define',
      stage: 'narrowing',
      narrowing: 'culprit',
      recovered: true,
    });
    assert.deepEqual(
      first!.probes.map((p) => [p.undone, p.passed, p.verdict]),
      [[[{ kind: 'added_define', define: 'PITON_FPGA_SYNTH' }], true, 'culprit']],
    );
    assert.equal(first!.llmCalls.filter((c) => c.phase === 'triage').length, 0, 'triage did not run');
    // The iteration's time covers its failure analysis: on a real checkout a probe is a build.
    assert.ok(
      first!.finished_at!.getTime() >= first!.probes[0]!.finished_at!.getTime(),
      'the probe ran inside the iteration',
    );
    assert.match(trace.iterations[1]!.feedback ?? '', /Diagnosis from the probes above: diagnosis=config_change/);
  });

  it('drop_bist: the missing define is found by narrowing', async () => {
    const drop = (t: Task) => ({
      ...t,
      config_rtl: (t.config_rtl ?? []).filter((d) => d !== 'CONFIG_DISABLE_BIST_CLEAR'),
    });
    const { outcome, trace } = await lab.run(picoSpec(), { planHook: breakFirstPlan(drop) });
    assert.equal(outcome.status, 'passed', outcome.reason);
    const failed = trace.iterations[0]!.tasks.find((t) => !t.passed)!;
    assert.equal(failed.run_verdict, 'timeout');
    assert.equal(failed.failure?.fix, 'add the CONFIG_DISABLE_BIST_CLEAR define');
  });

  it('crossbar: two rows fail with duplicate pins; the network is the culprit', async () => {
    const { outcome, trace } = await lab.run(picoSpec(), {
      planHook: breakFirstPlan((t) => ({ ...t, network: 'xbar_config' })),
    });
    assert.equal(outcome.status, 'passed', outcome.reason);
    const failed = trace.iterations[0]!.tasks.find((t) => !t.passed)!;
    assert.ok(failed.build_errors?.some((e) => /Duplicate pin connection/.test(e)));
    assert.equal(failed.failure?.fix, 'use the 2dmesh_config network instead of xbar_config');
  });

  it('l1d_eight_way on Ariane: refused under the way rule, narrowing skipped, triage reads it', async () => {
    const { outcome, trace } = await lab.run(arianeSpec(), {
      planHook: breakFirstPlan((t) => ({ ...t, caches: { ...(t.caches ?? {}), l1d: [8192, 8] } })),
    });
    assert.equal(outcome.status, 'passed', outcome.reason);
    const failed = trace.iterations[0]!.tasks.find((t) => !t.passed)!;
    assert.equal(failed.failure_reason, 'way_rule');
    assert.deepEqual(
      [failed.failure?.stage, failed.failure?.narrowing, failed.failure?.diagnosis],
      ['triage', 'skipped', 'config_error'],
    );
    assert.equal(failed.failure?.fix, 'lower the l1d associativity to 4');
    assert.equal(trace.iterations[0]!.probes.length, 0);
  });
});

describe('narrowing verdicts', () => {
  it('combination: a pair that fails only together (each single undo passes)', async () => {
    const pair = { l2: [131072, 4], l15: [4096, 4] } as const;
    const program = findProgram('sw.S')!;
    const design = {
      core: 'pico' as const,
      xTiles: 2,
      yTiles: 2,
      network: '2dmesh_config' as const,
      defines: ['CONFIG_DISABLE_BIST_CLEAR', 'MINIMAL_MONITORING'],
      buildArgs: [],
      finishMaskBits: 32,
      coreInstantiated: true,
    };
    const verdict = (caches: object, maxCycle: number) =>
      simulate(
        program,
        { ...design, caches: { ...DEFAULT_CACHES, ...caches } },
        { finishMask: '1111', rtlTimeout: 1_000_000, maxCycle },
      ).verdict;
    // The offline model's cycle counts put a cap between one change's cost and the pair's.
    let cap = 0;
    for (let c = 15_000; c < 30_000 && !cap; c++) {
      if (
        verdict({ l2: pair.l2 }, c) === 'pass' &&
        verdict({ l15: pair.l15 }, c) === 'pass' &&
        verdict(pair, c) === 'maxcycles'
      )
        cap = c;
    }
    assert.ok(cap, 'the model has a cap at which only the pair fails');
    const spec = picoSpec({ workloads: ['sw.S'], max_cycle: cap, budget: { max_iterations: 2 } });
    const { trace } = await lab.run(spec, { planHook: breakFirstPlan((t) => ({ ...t, caches: pair })) });
    const first = trace.iterations[0]!;
    assert.equal(first.tasks.find((t) => !t.passed)!.run_verdict, 'maxcycles');
    assert.deepEqual(
      first.probes.map((p) => p.passed),
      [true, true],
    );
    assert.equal(first.probes[0]!.verdict, 'combination');
    assert.equal(first.tasks.find((t) => !t.passed)!.failure?.fix, 'return to the default configuration');
  });

  it('combination: two changes that each break the build, undone together', async () => {
    const both = (t: Task) => ({ ...addDefine('PITON_FPGA_SYNTH')(t), network: 'xbar_config' as const });
    const { outcome, trace } = await lab.run(picoSpec(), { planHook: breakFirstPlan(both) });
    assert.equal(outcome.status, 'passed');
    const probes = trace.iterations[0]!.probes;
    assert.deepEqual(
      probes.map((p) => [p.undone?.length, p.passed]),
      [
        [1, false],
        [1, false],
        [2, true],
      ],
    );
    assert.equal(probes[0]!.verdict, 'combination');
  });

  it('not_config: the reference fails too, so triage runs with the probes’ note', async () => {
    await withFaults([ADDER], async () => {
      const spec = picoSpec({ budget: { max_iterations: 1 } });
      const { trace } = await lab.run(spec, {
        planHook: breakFirstPlan((t) => ({ ...t, caches: { l2: [32768, 4] } })),
        options: { post_mortem: false },
      });
      const first = trace.iterations[0]!;
      const failed = first.tasks.find((t) => !t.passed)!;
      assert.equal(failed.run_verdict, 'fail');
      assert.deepEqual(
        first.probes.map((p) => [p.passed, p.verdict]),
        [[false, 'not_config']],
      );
      assert.equal(failed.failure?.stage, 'triage');
      const triage = first.llmCalls.find((c) => c.phase === 'triage')!;
      assert.match(triage.prompt!, /Narrowing verdict: not_config/);
    });
  });

  it('no probes with narrowing off: the failure goes straight to triage', async () => {
    const { trace } = await lab.run(picoSpec(), {
      planHook: breakFirstPlan(addDefine('PITON_FPGA_SYNTH')),
      options: { narrowing: false },
    });
    const first = trace.iterations[0]!;
    assert.equal(first.probes.length, 0);
    assert.equal(first.tasks.find((t) => !t.passed)!.failure?.stage, 'triage');
    assert.equal(first.llmCalls.filter((c) => c.phase === 'triage').length, 1);
  });
});

describe('triage modes and the feedback note', () => {
  const noDefine = () =>
    picoSpec({ objective: 'Verify addi.S passes on a 2x2 pico mesh.', budget: { max_iterations: 2 } });

  it('triage=llm: one triage call, whose diagnosis and the evidence digest reach the next plan', async () => {
    const { outcome, trace } = await lab.run(noDefine());
    assert.equal(outcome.status, 'passed');
    const failure = trace.iterations[0]!.tasks[0]!.failure!;
    assert.deepEqual([failure.stage, failure.diagnosis], ['triage', 'timeout']);
    const plan = trace.iterations[1]!.llmCalls.find((c) => c.phase === 'plan')!.prompt!;
    assert.match(plan, /What the build and simulation reported: addi\.S: verdict timeout/);
    assert.match(
      plan,
      /Triage, an LLM's reading of this evidence: diagnosis=timeout, suggested fix=add the CONFIG_DISABLE_BIST_CLEAR define/,
    );
  });

  it('raw_evidence=false: the note is one line of changes, label and fix', async () => {
    const { trace } = await lab.run(noDefine(), { options: { raw_evidence: false } });
    const plan = trace.iterations[1]!.llmCalls.find((c) => c.phase === 'plan')!.prompt!;
    assert.doesNotMatch(plan, /What the build and simulation reported/);
    assert.match(
      plan,
      /Task gate \(Run addi\.S on that design\) failed; changes from the defaults: none; diagnosis=timeout, suggested fix=add the CONFIG_DISABLE_BIST_CLEAR define/,
    );
  });

  it('triage=raw: no triage call; the next plan reads the raw evidence', async () => {
    const { outcome, trace } = await lab.run(noDefine(), { options: { triage: 'raw' } });
    assert.equal(outcome.status, 'passed', 'the scripted planner diagnoses the raw evidence itself');
    assert.equal(trace.iterations[0]!.llmCalls.filter((c) => c.phase === 'triage').length, 0);
    assert.equal(trace.iterations[0]!.tasks[0]!.failure?.diagnosis, 'raw_evidence');
    assert.match(trace.iterations[1]!.llmCalls[0]!.prompt!, /The raw evidence of this failure:\nBuild flags: /);
  });

  it('triage=off: nothing reaches the next plan; the failure is not triaged', async () => {
    const { outcome, trace } = await lab.run(noDefine(), { options: { triage: 'off' } });
    assert.equal(outcome.status, 'budget_exceeded');
    assert.equal(trace.iterations[0]!.tasks[0]!.failure?.diagnosis, 'not_triaged');
    assert.doesNotMatch(trace.iterations[1]!.llmCalls[0]!.prompt!, /Feedback from earlier attempts/);
  });
});

describe('RTL edits', () => {
  it('a planted source bug is fixed by an rtl task with RTL edits on, and the edited design is rebuilt, not reused', async () => {
    await withFaults([TYPO], async () => {
      const { outcome, trace } = await lab.run(picoSpec(), { options: { rtl_edits: true } });
      assert.equal(outcome.status, 'passed', outcome.reason);
      const [first, second] = trace.iterations;
      const broken = first!.tasks[0]!;
      assert.equal(broken.failure?.diagnosis, 'rtl_suspect');
      const repair = second!.tasks.find((t) => t.kind === 'rtl')!;
      assert.ok(repair.passed);
      assert.match(repair.rtl_diff ?? '', /-.*mem_readyx[\s\S]*\+.*mem_ready\)/);
      assert.notEqual(repair.build_id, broken.build_id, 'the edit is part of the build identity');
      assert.equal(repair.build_reused, false);
      const agent = second!.llmCalls.find((c) => c.phase === 'rtl')!;
      assert.ok((agent.tool_calls as { name: string }[]).some((c) => c.name === 'replace_in_file'));
    });
    const text = readFileSync(join((await lab.checkoutRoots())[0]!, PICORV32), 'utf8');
    assert.ok(text.includes('(mem_valid && mem_ready) ||'), 'the checkout is restored after the task');
  });

  it('without RTL edits the same bug is not fixed: the run ends without a pass', async () => {
    await withFaults([TYPO], async () => {
      const { outcome, trace } = await lab.run(picoSpec({ budget: { max_iterations: 2 } }));
      assert.equal(outcome.status, 'budget_exceeded');
      assert.equal(trace.iterations[0]!.tasks[0]!.failure?.diagnosis, 'needs_rtl_change');
      assert.ok(trace.iterations.every((it) => it.tasks.every((t) => t.kind !== 'rtl' && !t.rtl_diff)));
      assert.doesNotMatch(trace.iterations[0]!.llmCalls[0]!.prompt!, /kind=config\|workload\|unit_test\|rtl/);
      assert.equal(trace.postMortem?.assessment, 'likely_hardware_limitation');
    });
  });

  for (const carry of [true, false]) {
    it(`carry_edits=${carry}: the next iteration ${carry ? 'starts from' : 'drops'} the last built task's edits`, async () => {
      await withFaults([TYPO, ADDER], async () => {
        const config = makeTask({
          id: 'check',
          kind: 'config',
          instruction: 'build what the edits left',
          config_rtl: ['CONFIG_DISABLE_BIST_CLEAR'],
        });
        const { trace } = await lab.run(picoSpec({ budget: { max_iterations: 3 } }), {
          options: { rtl_edits: true, carry_edits: carry, post_mortem: false },
          planHook: (iteration, tasks) => (iteration === 2 ? [config] : tasks),
        });
        const repair = trace.iterations[1]!.tasks.find((t) => t.kind === 'rtl')!;
        assert.ok(repair.build_success && !repair.passed, 'the typo fix builds, and the adder still fails');
        const third = trace.iterations[2]!.tasks[0]!;
        if (carry) {
          assert.equal(third.rtl_diff, repair.rtl_diff);
          assert.match(
            trace.iterations[2]!.feedback ?? '',
            /starts from RTL edits already made to: piton\/design\/chip\/tile\/pico\/rtl\/picorv32\.v/,
          );
        } else {
          assert.equal(third.rtl_diff, null);
          assert.equal(
            third.failure_reason,
            'verilog_error',
            'without the carried fix the typo breaks the build again',
          );
        }
      });
    });
  }
});

describe('the post-mortem and the trace', () => {
  it('a failed run gets a post-mortem, and the trace shows iterations, tasks, probes, checks and diagnoses', async () => {
    const spec = picoSpec({ objective: 'Verify addi.S passes on a 2x2 pico mesh.', budget: { max_iterations: 1 } });
    const { outcome, trace } = await lab.run(spec, {
      mistakes: { unknown_define: 1 },
      planHook: breakFirstPlan((t) => ({ ...t, caches: { l2: [32768, 4] } })),
    });
    assert.equal(outcome.status, 'budget_exceeded');
    assert.equal(trace.postMortem?.assessment, 'fixable_config');
    assert.equal(trace.runLlmCalls.map((c) => c.phase).join(), 'post_mortem');
    const text = renderTrace(trace);
    for (const expected of [
      /iteration 0:/,
      /plan check #0: accepted/,
      /stripped from build: ENABLE_TURBO_PREFETCH/,
      /task gate \(workload\)/,
      /narrowing of gate: not_config/,
      /probe 0: undo cache l2/,
      /diagnosis: timeout \[triage, narrowing not_config\]/,
      /post-mortem: fixable_config/,
    ]) {
      assert.match(text, expected);
    }
  });

  it('post_mortem=false: a failed run gets none', async () => {
    const spec = picoSpec({ objective: 'Verify addi.S passes on a 2x2 pico mesh.', budget: { max_iterations: 1 } });
    const { trace } = await lab.run(spec, { options: { post_mortem: false } });
    assert.equal(trace.postMortem, undefined);
    assert.equal(trace.runLlmCalls.length, 0);
  });
});
