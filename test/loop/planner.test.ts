import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildPlannerPrompt,
  inheritDefines,
  planFromReply,
  PlanningError,
  PROMPT_HEADINGS,
  NO_RTL_RULE,
} from '../../mace/planner.ts';
import { makeSpec, makeTask } from '../../mace/spec.ts';
import { topologicalLevels, DagError } from '../../mace/dag.ts';

const spec = makeSpec({
  workloads: ['hello_world.c', 'accu_test.c'],
  objective: 'Verify the gate workloads pass on a 2x2 mesh.',
  core: 'ariane',
  target_mesh: [2, 2],
});

describe('planner prompt', () => {
  it('names core, objective, mesh, workloads, the directive lines and the defaults', () => {
    const prompt = buildPlannerPrompt(spec);
    assert.match(prompt, /ariane/);
    assert.match(prompt, /Objective: Verify the gate workloads pass on a 2x2 mesh\./);
    assert.match(prompt, /Target mesh: 2x2 tiles/);
    assert.match(prompt, /hello_world\.c, accu_test\.c/);
    assert.match(prompt, /TASK: <id> \| deps=.* \| kind=config\|workload\|unit_test \|/);
    assert.match(prompt, /CACHES: <task id> \| <name>=<size in bytes>,<associativity>/);
    assert.match(prompt, /l1i=16384,4 l1d=8192,4 l15=8192,4 l2=65536,4/);
    assert.match(prompt, /CONFIG_RTL: <task id>/);
  });

  it('offers the rtl kind and drops the no-edit rule only with RTL edits', () => {
    assert.ok(buildPlannerPrompt(spec).includes(NO_RTL_RULE));
    assert.doesNotMatch(buildPlannerPrompt(spec), /kind=config\|workload\|unit_test\|rtl/);
    const withEdits = buildPlannerPrompt(spec, { rtlEdits: true });
    assert.ok(!withEdits.includes(NO_RTL_RULE));
    assert.match(withEdits, /kind=config\|workload\|unit_test\|rtl/);
  });

  it('carries the feedback history and a rejection under their headings', () => {
    const prompt = buildPlannerPrompt(spec, {
      feedback: 'Task a failed.\n\nTask b failed.',
      rejection: '- [way_rule] task a: l1d has 8 ways',
    });
    assert.ok(prompt.indexOf(PROMPT_HEADINGS.feedback) < prompt.indexOf('Task a failed.'));
    assert.ok(prompt.indexOf('Task b failed.') < prompt.indexOf(PROMPT_HEADINGS.rejection));
    assert.match(prompt, /\[way_rule\]/);
  });
});

describe('planFromReply', () => {
  it('raises PlanningError for a reply with no task, quoting it', () => {
    assert.throws(
      () => planFromReply('I need more details.'),
      (e: unknown) =>
        e instanceof PlanningError && /no well-formed TASK: line/.test(e.message) && e.reply === 'I need more details.',
    );
    assert.throws(() => planFromReply('TASK: a | deps= | kind=test | x'), /name no known kind/);
  });

  it('raises PlanningError for duplicate ids, unknown dependencies and cycles', () => {
    assert.throws(
      () => planFromReply('TASK: a | deps= | kind=config | x\nTASK: a | deps= | kind=config | y'),
      /invalid task graph: duplicate task id "a"/,
    );
    assert.throws(() => planFromReply('TASK: a | deps=z | kind=config | x'), /depends on unknown task "z"/);
    assert.throws(
      () => planFromReply('TASK: a | deps=b | kind=config | x\nTASK: b | deps=a | kind=config | y'),
      /dependency cycle among tasks "a", "b"/,
    );
  });

  it('adds every ancestor’s CONFIG_RTL flags to a task, but not its CACHES', () => {
    const { tasks } = planFromReply(
      [
        'TASK: cfg | deps= | kind=config | set the define',
        'TASK: mid | deps=cfg | kind=config | more',
        'TASK: run | deps=mid | kind=workload | run it',
        'CONFIG_RTL: cfg | CONFIG_DISABLE_BIST_CLEAR',
        'CONFIG_RTL: mid | OTHER_FLAG',
        'CACHES: cfg | l2=32768,4',
      ].join('\n'),
    );
    const run = tasks.find((t) => t.id === 'run')!;
    assert.deepEqual(run.config_rtl, ['CONFIG_DISABLE_BIST_CLEAR', 'OTHER_FLAG']);
    assert.equal(run.caches, null);
  });
});

describe('topological levels', () => {
  it('groups independent tasks and orders dependants after their dependencies', () => {
    const t = (id: string, deps: string[] = []) => makeTask({ id, deps, kind: 'config' });
    const levels = topologicalLevels([t('c', ['a', 'b']), t('a'), t('b'), t('d', ['c'])]);
    assert.deepEqual(
      levels.map((l) => l.map((x) => x.id)),
      [['a', 'b'], ['c'], ['d']],
    );
    assert.throws(() => topologicalLevels([t('a', ['a'])]), DagError);
    assert.deepEqual(inheritDefines([]), []);
  });
});
