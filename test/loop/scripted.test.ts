import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDiagnosis, parsePostMortem, parseTasks } from '../../mace/directives.ts';
import { INVENTED_DEFINE, MISTAKES, ScriptedBackend, type MistakeRates } from '../../mace/llm/scripted/index.ts';
import { buildPlannerPrompt, planFromReply, PlanningError } from '../../mace/planner.ts';
import { makeSpec } from '../../mace/spec.ts';
import { picoSpec } from './support.ts';

const pico = picoSpec();
const agent = (seed = 1, mistakes: MistakeRates = {}) =>
  new ScriptedBackend({
    seed,
    mistakes,
    pricedAs: 'gemini-2.5-flash',
    costUsd: (u) => (u.inputTokens * 0.3 + (u.outputTokens + u.thinkingTokens) * 2.5) / 1e6,
  });

describe('scripted agent', () => {
  it('plans from the objective, stating the define it names', async () => {
    const reply = await agent().call({ phase: 'plan', prompt: buildPlannerPrompt(pico), tag: 'r/iter0/-/plan' });
    const { tasks } = planFromReply(reply.text);
    assert.ok(tasks.length >= 1);
    for (const task of tasks) assert.ok(task.config_rtl?.includes('CONFIG_DISABLE_BIST_CLEAR'), task.id);
    assert.ok(reply.usage.inputTokens > 100 && reply.usage.outputTokens > 10 && reply.usage.thinkingTokens > 0);
    assert.ok(reply.usd > 0);
  });

  it('follows a fix in the feedback', async () => {
    const feedback =
      "Task build (x) failed (build succeeded: false, run verdict: none).\nTriage, an LLM's reading of this evidence: diagnosis=config_error, suggested fix=remove the PITON_FPGA_SYNTH define";
    const spec = makeSpec({
      ...pico,
      objective: 'Verify addi.S passes. It needs CONFIG_DISABLE_BIST_CLEAR and keep PITON_FPGA_SYNTH out.',
    });
    const reply = await agent().call({ phase: 'plan', prompt: buildPlannerPrompt(spec, { feedback }) });
    assert.ok(
      parseTasks(reply.text).tasks.every(
        (t) => !t.config_rtl?.includes('PITON_FPGA_SYNTH') || spec.objective.includes('PITON_FPGA_SYNTH'),
      ),
    );
  });

  it('lowers the L1D ways when the plan check sends back a way-rule violation', async () => {
    const ariane = makeSpec({
      workloads: ['barrier_atomic_rv64.S'],
      objective: 'Pass the barrier with l1d=8192,8 on 2x2.',
      core: 'ariane',
      target_mesh: [2, 2],
    });
    const first = planFromReply((await agent().call({ phase: 'plan', prompt: buildPlannerPrompt(ariane) })).text);
    assert.deepEqual(first.tasks[0]!.caches, { l1d: [8192, 8] });
    const rejection =
      "- [way_rule] task build: l1d has 8 ways, more than the L1.5's 4; on Ariane neither the L1D nor the L1I may have more ways than the L1.5";
    const retry = planFromReply(
      (await agent().call({ phase: 'plan_retry', prompt: buildPlannerPrompt(ariane, { rejection }) })).text,
    );
    assert.deepEqual(retry.tasks[0]!.caches, { l1d: [8192, 4] });
  });

  it('gives the same replies for the same seed', async () => {
    const rates = Object.fromEntries(MISTAKES.map((m) => [m, 0.5]));
    const a = await agent(7, rates).call({ phase: 'plan', prompt: buildPlannerPrompt(pico), tag: 'x/iter0/-/plan' });
    const b = await agent(7, rates).call({ phase: 'plan', prompt: buildPlannerPrompt(pico), tag: 'x/iter0/-/plan' });
    assert.equal(a.text, b.text);
    assert.deepEqual(a.usage, b.usage);
  });

  it('makes each mistake at its configured rate', async () => {
    const detect: Record<string, (text: string) => boolean> = {
      l15_zero: (t) => /l15=0,4/.test(t),
      oversized_cache: (t) => /l2=4194304,4/.test(t),
      drop_objective_define: (t) => /TASK:/.test(t) && !/CONFIG_DISABLE_BIST_CLEAR/.test(t),
      bare_kind: (t) => /\| config \|/.test(t),
      no_plan: (t) => !/TASK:/.test(t),
      unknown_define: (t) => t.includes(INVENTED_DEFINE),
      speculative_task: (t) => /TASK: explore/.test(t),
      source_edit: (t) => /Edit piton\/design/.test(t),
    };
    const n = 400;
    for (const mistake of MISTAKES) {
      let seen = 0;
      for (let seed = 0; seed < n; seed++) {
        const reply = await agent(seed, { [mistake]: 0.25 }).call({
          phase: 'plan',
          prompt: buildPlannerPrompt(pico),
          tag: `r${seed}/iter0/-/plan`,
        });
        if (detect[mistake]!(reply.text)) seen++;
      }
      const rate = seen / n;
      assert.ok(rate > 0.18 && rate < 0.32, `${mistake}: seen at ${rate}`);
    }
    const clean = await agent(3).call({ phase: 'plan', prompt: buildPlannerPrompt(pico) });
    for (const [mistake, test] of Object.entries(detect))
      assert.equal(test(clean.text), false, `${mistake} with rate 0`);
  });

  it('answers with a reply the parsers read, for every phase', async () => {
    const noPlan = await agent(1, { no_plan: 1 }).call({ phase: 'plan', prompt: buildPlannerPrompt(pico) });
    assert.throws(() => planFromReply(noPlan.text), PlanningError);
    const triage = await agent().call({
      phase: 'triage',
      prompt: [
        `Objective: ${pico.objective}`,
        'Core: pico. Target mesh: 2x2. Gate workloads: addi.S.',
        'Task build (config: x) failed its verification gate.',
        'Build succeeded: false\nRun verdict: none',
        'Changes from the defaults: adds PITON_FPGA_SYNTH',
        'Build flags: -sys=manycore -x_tiles=2 -y_tiles=2 -network_config=2dmesh_config -pico -config_rtl=CONFIG_DISABLE_BIST_CLEAR -config_rtl=MINIMAL_MONITORING -config_rtl=PITON_FPGA_SYNTH',
        'Build failure reason: verilog_error',
        "Build errors:\n%Error-PINNOTFOUND: $PITON_ROOT/piton/verif/env/manycore/manycore_top.tmp.v:361:6: Pin not found: 'async_mux'",
      ].join('\n\n'),
    });
    assert.deepEqual(parseDiagnosis(triage.text), {
      diagnosis: 'config_error',
      fix: 'remove the PITON_FPGA_SYNTH define (it selects FPGA pins the simulation top does not have)',
    });
    const pm = await agent().call({
      phase: 'post_mortem',
      prompt:
        'Iteration 0, task build (config): x -> build_success=true, verdict=maxcycles\n  triaged as: maxcycles (suggested fix: none)',
    });
    assert.equal(parsePostMortem(pm.text)?.assessment, 'likely_hardware_limitation');
    assert.equal((await agent().call({ phase: 'ping', prompt: 'ping' })).text, 'pong');
  });
});
