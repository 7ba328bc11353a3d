import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changedParts, expandJobs, jobKey, jobParts, jobSeed, shuffled, type Job } from '../../harness/runner/jobs.ts';
import { parseSuite, type Suite } from '../../harness/suite/load.ts';
import { ARIANE_TASK, PICO_TASK, suiteText } from './support.ts';

const load = (text: string): Suite => parseSuite(text, 'jobs.yaml');
const plan = (suite: Suite) => ({ ...suite.study, tasks: suite.tasks });
const keys = (suite: Suite, pool = 'pool-a') =>
  new Map(expandJobs(plan(suite)).map((job) => [job.name, jobKey(job, jobParts(job, suite.study.llm, pool))]));

const METHODS = '[mace, expert, seeded_drop_bist, faultcheck_drop_bist, seeded_l1d_eight_way, seeded_crossbar]';
const base = suiteText({ methods: METHODS, tasks: PICO_TASK + ARIANE_TASK, repeats: 3 });

describe('job expansion', () => {
  it('is tasks × methods where they apply × repeats, once-only methods once', () => {
    const jobs = expandJobs(plan(load(base)));
    const count = (task: string, method: string) =>
      jobs.filter((j) => j.task.id === task && j.method.name === method).length;
    assert.equal(count('pico-2x2-addi', 'mace'), 3);
    assert.equal(count('pico-2x2-addi', 'expert'), 1);
    assert.equal(count('pico-2x2-addi', 'seeded_drop_bist'), 3);
    assert.equal(count('pico-2x2-addi', 'faultcheck_drop_bist'), 1);
    assert.equal(count('ariane-2x2-barrier', 'seeded_drop_bist'), 0, 'drop_bist applies to PicoRV32 only');
    assert.equal(count('ariane-2x2-barrier', 'faultcheck_drop_bist'), 0);
    assert.equal(count('ariane-2x2-barrier', 'seeded_l1d_eight_way'), 3);
    assert.equal(count('pico-2x2-addi', 'seeded_l1d_eight_way'), 0, 'the way rule is Ariane’s');
    assert.equal(count('pico-2x2-addi', 'seeded_crossbar'), 3);
    assert.equal(jobs.length, 3 + 1 + 3 + 1 + 3 + (3 + 1 + 3 + 3));
    assert.equal(new Set(jobs.map((j) => j.name)).size, jobs.length, 'every job once');
  });

  it('skips crossbar on one row, and bring-up methods on co-design tasks', () => {
    const suite = load(
      suiteText({
        methods: '[mace, seeded_crossbar]',
        tasks: `
  - id: one-row
    core: pico
    mesh: [4, 1]
    workloads: [addi.S]
    objective: o
    verified: true
  - id: search
    mesh: [2, 2]
    workloads: [barrier_atomic_rv64.S]
    objective: o
    verified: true
    codesign:
      space: { l2: { sizes: [32768, 65536], assocs: [4] } }
      grid: { l2_size: [32768, 65536] }`,
      }),
    );
    assert.deepEqual(
      expandJobs(plan(suite)).map((j) => j.name),
      ['one-row mace r0'],
    );
  });

  it('shuffles by the study seed: the same seed gives the same order, another seed another', () => {
    const a = expandJobs(plan(load(base))).map((j) => j.name);
    const again = expandJobs(plan(load(base))).map((j) => j.name);
    const other = expandJobs(plan(load(base.replace('seed: 0', 'seed: 1')))).map((j) => j.name);
    assert.deepEqual(a, again);
    assert.notDeepEqual(a, other);
    assert.deepEqual([...a].sort(), [...other].sort());
    assert.notDeepEqual(a.slice(0, 4), a.filter((n) => n.startsWith('pico-2x2-addi ')).slice(0, 4), 'tasks are mixed');
    assert.deepEqual(shuffled([1, 2, 3, 4, 5, 6, 7, 8], 4), shuffled([1, 2, 3, 4, 5, 6, 7, 8], 4));
  });

  it('seeds every method of one repeat alike, and repeats and studies differently', () => {
    const jobs = expandJobs(plan(load(base)));
    const seeds = (repeat: number) => new Set(jobs.filter((j) => j.repeat === repeat).map((j) => j.seed));
    assert.equal(seeds(0).size, 1);
    assert.notEqual([...seeds(0)][0], [...seeds(1)][0]);
    assert.equal([...seeds(2)][0], jobSeed(0, 2));
    assert.notEqual(jobSeed(0, 0), jobSeed(1, 0));
    assert.ok(jobs.every((j) => Number.isInteger(j.seed) && j.seed >= 0 && j.seed < 2 ** 31));
  });
});

describe('job keys', () => {
  const before = keys(load(base));
  const changed = (after: Map<string, string>) =>
    [...after].filter(([name, key]) => before.get(name) !== key).map(([n]) => n);

  it('are stable, and name the task, method and repeat', () => {
    assert.deepEqual(keys(load(base)), before);
    assert.match(before.get('pico-2x2-addi mace r1')!, /^pico-2x2-addi\/mace\/r1\/[0-9a-f]{12}$/);
  });

  it('change for exactly the jobs of an edited task', () => {
    const after = keys(load(base.replace('on a 2x2 ariane mesh.', 'on a 2x2 ariane mesh, quickly.')));
    const edited = changed(after);
    assert.ok(edited.length > 0);
    assert.ok(
      edited.every((name) => name.startsWith('ariane-2x2-barrier ')),
      edited.join(', '),
    );
    assert.equal(edited.length, [...before.keys()].filter((n) => n.startsWith('ariane-2x2-barrier ')).length);
  });

  it('change for exactly the jobs of a method whose options were edited', () => {
    const withDefined = (narrowing: boolean) =>
      keys(load(base.replace(METHODS, `[mace, { name: quick, base: mace, options: { narrowing: ${narrowing} } }]`)));
    const a = withDefined(false);
    const b = withDefined(true);
    const differ = [...a].filter(([name, key]) => b.get(name) !== key).map(([n]) => n);
    assert.equal(differ.length, 6);
    assert.ok(differ.every((n) => n.includes(' quick ')));
  });

  it('change with the budget, the LLM (for LLM methods only), the checkouts and the seed; not with labels', () => {
    assert.equal(changed(keys(load(base.replace('max_wall_s: 600', 'max_wall_s: 601')))).length, before.size);
    const llm = changed(
      keys(load(base.replace('{ backend: scripted }', '{ backend: scripted, scripted: { seed: 2 } }'))),
    );
    assert.ok(llm.length > 0 && llm.every((n) => !/ (expert|faultcheck_\w+) /.test(n)), llm.join(', '));
    assert.equal(changed(keys(load(base), 'pool-b')).length, before.size);
    assert.equal(changed(keys(load(base.replace('seed: 0', 'seed: 5')))).length, before.size);
    assert.equal(changed(keys(load(`${base.replace('tasks:', '  labels: { machine: vm2 }\ntasks:')}`))).length, 0);
  });

  it('say which part of the job changed', () => {
    const suite = load(base);
    const job = expandJobs(plan(suite)).find((j) => j.method.name === 'mace') as Job;
    const parts = jobParts(job, suite.study.llm, 'pool-a');
    assert.deepEqual(changedParts(parts, parts), []);
    assert.deepEqual(changedParts({ ...parts, budget: 'x', checkouts: 'y' }, parts), ['budget', 'checkout contents']);
    assert.deepEqual(changedParts({}, parts).length, 6);
  });
});
