import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changeId, configForTask, designKey, referenceConfig, changesFromReference } from '../../mace/design.ts';
import { collapseSingleDesign } from '../../mace/fast-path.ts';
import { namedDefines, requiredDefines } from '../../mace/objective.ts';
import {
  addRequiredDefines,
  asksForSourceEdit,
  checkPlan,
  stripUnknownDefines,
  type PlanCheckContext,
} from '../../mace/plan-check.ts';
import { makeSpec, makeTask, type Task } from '../../mace/spec.ts';
import { picoSpec } from './support.ts';

const pico = picoSpec();
const ariane = makeSpec({
  workloads: ['barrier_atomic_rv64.S'],
  objective: 'Pass the barrier on 2x2.',
  core: 'ariane',
  target_mesh: [2, 2],
});
const task = (id: string, extra: Partial<Task> = {}) =>
  makeTask({ id, kind: 'config', instruction: 'build it', ...extra });

function ctx(spec = pico, extra: Partial<PlanCheckContext> = {}): PlanCheckContext {
  return {
    spec,
    rtlEdits: false,
    requiredDefines: requiredDefines(spec.objective),
    modulePathProblem: (path) =>
      path === 'piton/design/chip/tile/pico/rtl/picorv32.v' ? undefined : 'does not exist in the checkout',
    failedDesigns: new Set(),
    badChangeSets: [],
    buildsOnEdits: (t) => t.kind === 'rtl',
    ...extra,
  };
}

describe('objective defines', () => {
  it('finds the defines a sentence says a build needs, and every named define', () => {
    assert.deepEqual(requiredDefines(pico.objective), ['CONFIG_DISABLE_BIST_CLEAR']);
    assert.deepEqual(requiredDefines('Try PITON_FPGA_SYNTH once. Report the result.'), []);
    assert.deepEqual(namedDefines('Try PITON_FPGA_SYNTH once. RTL PASS.'), ['PITON_FPGA_SYNTH']);
  });
});

describe('strip_unknown_defines and add_required_defines', () => {
  it('strips defines no file mentions, keeping those the objective names', () => {
    const index = new Set(['MINIMAL_MONITORING', 'PITON_FPGA_SYNTH']);
    const plan = [task('a', { config_rtl: ['INVENTED_THING', 'PITON_FPGA_SYNTH', 'CONFIG_DISABLE_BIST_CLEAR'] })];
    const out = stripUnknownDefines(plan, index, pico.objective);
    assert.deepEqual(out.tasks[0]!.config_rtl, ['PITON_FPGA_SYNTH', 'CONFIG_DISABLE_BIST_CLEAR']);
    assert.deepEqual(out.changed, { a: ['INVENTED_THING'] });
  });

  it('adds required defines to config, workload and rtl tasks but not unit_test tasks', () => {
    const plan = [
      task('c'),
      task('w', { kind: 'workload' }),
      task('r', { kind: 'rtl' }),
      task('u', { kind: 'unit_test', instruction: 'piton/design/chip/tile/pico/rtl/picorv32.v' }),
    ];
    const out = addRequiredDefines(plan, ['CONFIG_DISABLE_BIST_CLEAR']);
    assert.deepEqual(Object.keys(out.changed), ['c', 'w', 'r']);
    assert.equal(out.tasks[3]!.config_rtl, null);
  });
});

describe('check_plan rules', () => {
  const rules = (tasks: Task[], c: PlanCheckContext) => checkPlan(tasks, c).map((p) => `${p.rule}:${p.task}`);
  const bist = { config_rtl: ['CONFIG_DISABLE_BIST_CLEAR'] };

  it('accepts a sound plan', () => {
    assert.deepEqual(rules([task('a', bist)], ctx()), []);
  });

  it('source_edit: an rtl task or an edit instruction in a run without RTL edits', () => {
    assert.deepEqual(rules([task('r', { ...bist, kind: 'rtl' })], ctx()), ['source_edit:r']);
    assert.deepEqual(
      rules(
        [task('e', { ...bist, instruction: 'Edit piton/design/chip/tile/pico/rtl/picorv32.v to fix reset' })],
        ctx(),
      ),
      ['source_edit:e'],
    );
    assert.deepEqual(rules([task('r', { ...bist, kind: 'rtl' })], ctx(pico, { rtlEdits: true })), []);
    assert.equal(asksForSourceEdit('Run addi.S with the default caches'), false);
    assert.equal(asksForSourceEdit('modify wt_l15_adapter.sv'), true);
  });

  it('required_define: only for kinds add_required_defines does not cover', () => {
    assert.deepEqual(
      rules([task('u', { kind: 'unit_test', instruction: 'piton/design/chip/tile/pico/rtl/picorv32.v' })], ctx()),
      ['required_define:u'],
    );
    assert.deepEqual(rules([task('a')], ctx()), ['required_define:a']);
  });

  it("way_rule: Ariane's L1D or L1I with more ways than the L1.5", () => {
    const problems = checkPlan([task('w', { caches: { l1d: [8192, 8] } })], ctx(ariane));
    assert.equal(problems[0]!.rule, 'way_rule');
    assert.match(problems[0]!.reason, /l1d has 8 ways, more than the L1\.5's 4/);
    assert.deepEqual(rules([task('w', { ...bist, caches: { l1d: [8192, 8] } })], ctx()), []);
  });

  it('missing_module: a unit_test of a path not in the checkout', () => {
    const c = ctx(ariane);
    assert.deepEqual(rules([task('u', { kind: 'unit_test', instruction: 'piton/design/nope.v' })], c), [
      'missing_module:u',
    ]);
    assert.deepEqual(
      rules([task('u', { kind: 'unit_test', instruction: 'piton/design/chip/tile/pico/rtl/picorv32.v' })], c),
      [],
    );
  });

  it('repeated_failure: the same flags as a configuration that already failed, unless it builds on edits', () => {
    const failed = new Set([designKey(configForTask(pico, task('x', bist)))]);
    assert.deepEqual(rules([task('again', bist)], ctx(pico, { failedDesigns: failed })), ['repeated_failure:again']);
    assert.deepEqual(
      rules([task('r', { ...bist, kind: 'rtl' })], ctx(pico, { failedDesigns: failed, rtlEdits: true })),
      [],
    );
  });

  it('known_bad_change: every change of a set narrowing showed breaks the design', () => {
    const bad = [['added_define:PITON_FPGA_SYNTH']];
    assert.deepEqual(
      rules(
        [task('f', { config_rtl: ['CONFIG_DISABLE_BIST_CLEAR', 'PITON_FPGA_SYNTH'] })],
        ctx(pico, { badChangeSets: bad }),
      ),
      ['known_bad_change:f'],
    );
    const pair = [['cache:l2=32768,4', 'network:xbar_config']];
    assert.deepEqual(
      rules([task('p', { ...bist, caches: { l2: [32768, 4] } })], ctx(pico, { badChangeSets: pair })),
      [],
    );
    assert.deepEqual(
      rules(
        [task('p', { ...bist, caches: { l2: [32768, 4] }, network: 'xbar_config' })],
        ctx(pico, { badChangeSets: pair }),
      ),
      ['known_bad_change:p'],
    );
  });

  it('wrapper_skeleton: while the wrapper is the skeleton, builds must follow an rtl task', () => {
    const c = ctx(ariane, { skeletonWrapper: true, rtlEdits: true });
    assert.deepEqual(rules([task('a')], c), ['wrapper_skeleton:null', 'wrapper_skeleton:a']);
    assert.deepEqual(rules([task('w', { kind: 'rtl' }), task('a', { deps: ['w'] })], c), []);
  });
});

describe('changes from the reference', () => {
  it('lists both directions: added and missing defines, caches, network', () => {
    const config = configForTask(
      pico,
      task('t', { config_rtl: ['PITON_FPGA_SYNTH'], caches: { l2: [32768, 4] }, network: 'xbar_config' }),
    );
    assert.deepEqual(changesFromReference(pico, config).map(changeId), [
      'added_define:PITON_FPGA_SYNTH',
      'missing_define:CONFIG_DISABLE_BIST_CLEAR',
      'cache:l2=32768,4',
      'network:xbar_config',
    ]);
    assert.deepEqual(referenceConfig(pico).config_rtl, ['CONFIG_DISABLE_BIST_CLEAR', 'MINIMAL_MONITORING']);
  });
});

describe('fast path', () => {
  const bist = { config_rtl: ['CONFIG_DISABLE_BIST_CLEAR'] };
  it('collapses one design under several names to the last task in dependency order', () => {
    const plan = [task('run', { ...bist, kind: 'workload', deps: ['cfg'] }), task('cfg', bist)];
    const collapsed = collapseSingleDesign(pico, plan)!;
    assert.equal(collapsed.kept.id, 'run');
    assert.deepEqual(collapsed.kept.deps, []);
    assert.deepEqual(collapsed.replaced, ['cfg']);
  });
  it('keeps plans of several designs, or with other kinds', () => {
    assert.equal(
      collapseSingleDesign(pico, [task('a', bist), task('b', { config_rtl: ['CONFIG_DISABLE_BIST_CLEAR', 'X_Y'] })]),
      undefined,
    );
    assert.equal(collapseSingleDesign(pico, [task('a', bist), task('r', { ...bist, kind: 'rtl' })]), undefined);
    assert.equal(collapseSingleDesign(pico, [task('a', bist)]), undefined);
  });
});
