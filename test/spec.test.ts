import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from '../mace/errors.ts';
import { formatIssues } from '../mace/openpiton/issues.ts';
import {
  BudgetSchema,
  LoopOptionsSchema,
  LOOP_OPTION_NAMES,
  MaceSpecSchema,
  RUN_STATUSES,
  FINISHED_STATUSES,
  TaskSchema,
  makeSpec,
  makeTask,
} from '../mace/spec.ts';
import { DEFAULT_CACHES, fullCaches, describeCaches } from '../mace/openpiton/geometry.ts';
import type { z } from 'zod';

/** The formatted error lines of a failed parse. */
function errors(schema: z.ZodType, value: unknown, prefix = ''): string[] {
  const result = schema.safeParse(value);
  assert.equal(result.success, false, 'expected the value to be refused');
  return formatIssues((result as { error: z.ZodError }).error, prefix).split('\n');
}

const spec = { workloads: ['addi.S'], objective: 'Pass addi.S on a 2x2 pico mesh.', core: 'pico', target_mesh: [2, 2] };

describe('MaceSpec', () => {
  it('fills the documented defaults', () => {
    const parsed = makeSpec({ workloads: ['barrier_atomic.c'], objective: 'o' });
    assert.equal(parsed.core, 'ariane');
    assert.deepEqual(parsed.target_mesh, [1, 1]);
    assert.deepEqual(parsed.budget, { max_iterations: 10, max_usd: 20, max_wall_s: 3600 });
    assert.equal(parsed.coverage, false);
    assert.equal(parsed.rtl_timeout, null);
    assert.equal(parsed.max_cycle, null);
  });

  it('refuses no workloads, an empty name and a blank objective', () => {
    assert.deepEqual(errors(MaceSpecSchema, { ...spec, workloads: [] }), [
      'workloads: workloads must name at least one gate program',
    ]);
    assert.deepEqual(errors(MaceSpecSchema, { ...spec, workloads: ['  '] }), [
      'workloads[0]: a workload name must not be empty',
    ]);
    assert.deepEqual(errors(MaceSpecSchema, { ...spec, objective: '   ' }), ['objective: objective must not be empty']);
  });

  it('names the accepted cores', () => {
    assert.deepEqual(errors(MaceSpecSchema, { ...spec, core: 'mips' }), [
      'core: core must be one of ariane, sparc, pico, generic; got "mips"',
    ]);
  });

  it('limits the mesh to 1..256 integers per axis', () => {
    assert.deepEqual(errors(MaceSpecSchema, { ...spec, target_mesh: [0, 2] }), [
      'target_mesh[0]: a tile count must be a positive integer, got 0',
    ]);
    assert.deepEqual(errors(MaceSpecSchema, { ...spec, target_mesh: [2, 257] }), [
      'target_mesh[1]: tiles per axis must be 1..256, got 257',
    ]);
    assert.deepEqual(errors(MaceSpecSchema, { ...spec, target_mesh: [true, 2] }), [
      'target_mesh[0]: a tile count must be a positive integer, got true',
    ]);
    assert.match(
      errors(MaceSpecSchema, { ...spec, target_mesh: [2] })[0]!,
      /^target_mesh: mesh must be \[x_tiles, y_tiles\]/,
    );
    assert.deepEqual(makeSpec({ ...spec, target_mesh: [256, 256] } as never).target_mesh, [256, 256]);
  });

  it('checks rtl_timeout, max_cycle and workload_args', () => {
    assert.deepEqual(errors(MaceSpecSchema, { ...spec, rtl_timeout: 0 }), [
      'rtl_timeout: rtl_timeout must be a positive integer, got 0',
    ]);
    assert.deepEqual(errors(MaceSpecSchema, { ...spec, max_cycle: 1.5 }), [
      'max_cycle: max_cycle must be a positive integer, got 1.5',
    ]);
    assert.deepEqual(errors(MaceSpecSchema, { ...spec, workload_args: { 'lw.S': {} } }), [
      'workload_args.lw.S: lw.S is not one of the workloads (addi.S)',
    ]);
    assert.deepEqual(errors(MaceSpecSchema, { ...spec, workload_args: { 'addi.S': { finish_mask: 'xyz' } } }), [
      'workload_args.addi.S.finish_mask: finish_mask must be hexadecimal digits, one per tile',
    ]);
    assert.deepEqual(errors(MaceSpecSchema, { ...spec, workload_args: { 'addi.S': { run_args: ['x'] } } }), [
      'workload_args.addi.S.run_args[0]: each run argument must start with -',
    ]);
  });

  it('rejects unknown keys and lists the accepted ones', () => {
    const [line] = errors(MaceSpecSchema, { ...spec, mesh: [2, 2] });
    assert.match(line!, /^\(value\): unknown key "mesh"; accepted: workloads, objective, core, target_mesh/);
  });

  it('throws an InputError naming every field at fault', () => {
    assert.throws(
      () => makeSpec({ ...spec, core: 'x', budget: { max_iterations: 0 } } as never),
      (e: unknown) =>
        e instanceof InputError &&
        /core: core must be one of/.test(e.message) &&
        /budget.max_iterations: max_iterations must be a positive integer, got 0/.test(e.message),
    );
  });
});

describe('Budget', () => {
  it('defaults to 10 iterations, $20 and 3600 s', () => {
    assert.deepEqual(BudgetSchema.parse({}), { max_iterations: 10, max_usd: 20, max_wall_s: 3600 });
  });
  it('needs positive limits, with whole iterations and seconds', () => {
    assert.deepEqual(errors(BudgetSchema, { max_iterations: 2.5 }), [
      'max_iterations: max_iterations must be a positive integer, got 2.5',
    ]);
    assert.deepEqual(errors(BudgetSchema, { max_wall_s: 10.5 }), [
      'max_wall_s: max_wall_s must be a positive integer, got 10.5',
    ]);
    assert.deepEqual(errors(BudgetSchema, { max_usd: 0 }), ['max_usd: max_usd must be a positive number, got 0']);
    assert.deepEqual(errors(BudgetSchema, { max_usd: '5' }), ['max_usd: max_usd must be a positive number, got "5"']);
    assert.deepEqual(BudgetSchema.parse({ max_usd: 0.5 }).max_usd, 0.5);
    assert.deepEqual(errors(BudgetSchema, { max_turns: 3 }), [
      '(value): unknown key "max_turns"; accepted: max_iterations, max_usd, max_wall_s',
    ]);
  });
});

describe('LoopOptions', () => {
  it('has the thirteen fields of the seed with the full loop as default', () => {
    assert.deepEqual(LoopOptionsSchema.parse({}), {
      triage: 'llm',
      check: 'sim',
      reuse_builds: true,
      task_prompts: true,
      post_mortem: true,
      rtl_edits: false,
      plan_check: true,
      raw_evidence: true,
      narrowing: true,
      fast_path: true,
      planner_thinking: 512,
      gate_pass_ends_run: true,
      carry_edits: true,
    });
    assert.equal(LOOP_OPTION_NAMES.length, 13);
  });
  it('names the accepted values', () => {
    assert.deepEqual(errors(LoopOptionsSchema, { triage: 'human' }), [
      'triage: triage must be one of llm, raw, off; got "human"',
    ]);
    assert.deepEqual(errors(LoopOptionsSchema, { check: 'lint' }), [
      'check: check must be one of sim, build; got "lint"',
    ]);
    assert.deepEqual(errors(LoopOptionsSchema, { planner_thinking: -1 }), [
      'planner_thinking: planner_thinking must be a positive integer, got -1',
    ]);
    assert.match(errors(LoopOptionsSchema, { narrowing: 'yes' })[0]!, /^narrowing: /);
    assert.equal(LoopOptionsSchema.parse({ planner_thinking: null }).planner_thinking, null);
  });
});

describe('Task (planner seed, Validation)', () => {
  const base = { id: 't1', kind: 'config', instruction: 'build it' } as const;

  it('parses a full task', () => {
    const task = makeTask({
      ...base,
      deps: ['a'],
      caches: { l1d: [8192, 8] },
      config_rtl: ['CONFIG_DISABLE_BIST_CLEAR'],
      network: 'xbar_config',
    });
    assert.deepEqual(task, {
      id: 't1',
      kind: 'config',
      instruction: 'build it',
      deps: ['a'],
      caches: { l1d: [8192, 8] },
      config_rtl: ['CONFIG_DISABLE_BIST_CLEAR'],
      network: 'xbar_config',
    });
  });
  it('rejects an empty id', () => {
    assert.deepEqual(errors(TaskSchema, { ...base, id: ' ' }, 'task'), ['task.id: id must not be empty']);
  });
  it('rejects a kind outside TASK_KINDS', () => {
    assert.deepEqual(errors(TaskSchema, { ...base, kind: 'test' }), [
      'kind: kind must be one of config, workload, unit_test, rtl; got "test"',
    ]);
  });
  it('rejects an empty dependency id', () => {
    assert.deepEqual(errors(TaskSchema, { ...base, deps: ['a', ''] }), ['deps[1]: a dependency id must not be empty']);
  });
  it('rejects an unknown or duplicated cache name', () => {
    assert.deepEqual(errors(TaskSchema, { ...base, caches: { l3: [1024, 1] } }), [
      'caches.l3: unknown cache "l3"; valid: l15, l1d, l1i, l2',
    ]);
    assert.deepEqual(
      errors(TaskSchema, {
        ...base,
        caches: [
          ['l1d', 8192, 4],
          ['l1d', 4096, 4],
        ],
      }),
      ['caches.l1d: cache l1d is given twice'],
    );
  });
  it('rejects a non-positive cache size or associativity', () => {
    assert.deepEqual(errors(TaskSchema, { ...base, caches: { l15: [0, 4] } }), [
      'caches.l15: cache l15: size must be a positive integer, got 0',
    ]);
    assert.deepEqual(errors(TaskSchema, { ...base, caches: { l2: [65536, -4] } }), [
      'caches.l2: cache l2: associativity must be a positive integer, got -4',
    ]);
  });
  it('rejects a malformed or duplicated config_rtl flag', () => {
    assert.deepEqual(errors(TaskSchema, { ...base, config_rtl: ['config_x'] }), [
      'config_rtl[0]: "config_x" is not an upper-snake-case define such as CONFIG_DISABLE_BIST_CLEAR',
    ]);
    assert.deepEqual(errors(TaskSchema, { ...base, config_rtl: ['A_B', 'A_B'] }), [
      'config_rtl[1]: define A_B is given twice',
    ]);
  });
  it('rejects an unknown network', () => {
    assert.deepEqual(errors(TaskSchema, { ...base, network: '2d_mesh' }), [
      'network: network must be one of 2dmesh_config, xbar_config; got "2d_mesh"',
    ]);
  });
});

describe('cache geometry', () => {
  it('has the sims defaults', () => {
    assert.deepEqual(DEFAULT_CACHES, { l15: [8192, 4], l1d: [8192, 4], l1i: [16384, 4], l2: [65536, 4] });
    assert.equal(describeCaches(DEFAULT_CACHES), 'l1i=16384,4 l1d=8192,4 l15=8192,4 l2=65536,4');
  });
  it('normalises a partial map to all four caches', () => {
    assert.deepEqual(fullCaches({ l1d: [16384, 8] }), {
      l15: [8192, 4],
      l1d: [16384, 8],
      l1i: [16384, 4],
      l2: [65536, 4],
    });
    assert.deepEqual(fullCaches(null), DEFAULT_CACHES);
  });
});

describe('run statuses', () => {
  it('are the budgets seed statuses, and running and error are not finished', () => {
    assert.deepEqual([...RUN_STATUSES].sort(), [
      'budget_exceeded',
      'checksum_mismatch',
      'error',
      'failed',
      'passed',
      'planning_failed',
      'running',
      'unsupported_core',
    ]);
    assert.equal(FINISHED_STATUSES.has('running'), false);
    assert.equal(FINISHED_STATUSES.has('error'), false);
    assert.equal(FINISHED_STATUSES.has('budget_exceeded'), true);
  });
});
