/**
 * unit_test tasks end to end on the offline checkouts with the scripted agent: the plan check refuses
 * a module path that is not in the checkout; a testbench is scaffolded, adapted by the agent's one
 * call and built; a testbench that connects a pin the module lacks fails with PINNOTFOUND and is
 * diagnosed testbench_mismatch without a triage call; the checkout is left as it was.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { unitTestEnvName } from '../../mace/openpiton/unit-test.ts';
import { closeAllStores } from '../../mace/store/store.ts';
import { OfflineLab, picoSpec } from './support.ts';

after(closeAllStores);
const lab = new OfflineLab();

const PICORV32 = 'piton/design/chip/tile/pico/rtl/picorv32.v';
const unitSpec = (path: string, iterations = 2) =>
  picoSpec({
    objective: `Unit-test ${path}: scaffold a testbench for it and build it.`,
    budget: { max_iterations: iterations },
  });

const clean = async () => {
  for (const root of await lab.checkoutRoots())
    assert.equal(execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' }), '', root);
};

describe('unit_test tasks in the loop', () => {
  it('scaffolds the environment, lets the agent adapt the testbench, and passes on the build', async () => {
    const { outcome, trace } = await lab.run(unitSpec(PICORV32));
    assert.equal(outcome.status, 'passed', outcome.reason);
    const [task] = trace.iterations[0]!.tasks;
    assert.equal(task!.kind, 'unit_test');
    assert.equal(task!.module, PICORV32);
    assert.equal(task!.build_success, true);
    assert.deepEqual(task!.sims_flags, [`-sys=${unitTestEnvName(PICORV32)}`]);
    assert.deepEqual(task!.programs, [], 'a unit test is built, never run');
    const agent = trace.iterations[0]!.llmCalls.find((c) => c.phase === 'unit_test')!;
    assert.match(agent.prompt!, /- output mem_addr \[31:0\] \(32 bits\)/);
    assert.deepEqual(
      (agent.tool_calls as { name: string }[]).map((c) => c.name),
      ['read_testbench', 'write_testbench'],
    );
    await clean();
  });

  it('diagnoses a wrong pin as testbench_mismatch without a triage call, and recovers', async () => {
    const { outcome, trace } = await lab.run(unitSpec(PICORV32), { mistakes: { testbench_port: 1 } });
    assert.equal(outcome.status, 'passed', outcome.reason);
    const [first, second] = trace.iterations;
    const failed = first!.tasks[0]!;
    assert.equal(failed.build_success, false);
    assert.match(failed.build_errors![0]!, /^%Error-PINNOTFOUND: .*_top\.v:\d+:10: Pin not found: 'trap_WRONG'$/);
    assert.equal(failed.failure?.diagnosis, 'testbench_mismatch');
    assert.equal(failed.failure?.stage, 'short_circuit');
    assert.deepEqual(
      first!.llmCalls.map((c) => c.phase),
      ['plan', 'unit_test'],
      'no triage call',
    );
    assert.equal(second!.tasks[0]!.passed, true, 'the agent, told of the mismatch, connects the real pins');
    await clean();
  });

  it('refuses a module path that is not in the checkout (missing_module)', async () => {
    const missing = 'piton/design/chip/tile/pico/rtl/picorv64.v';
    const { outcome, trace } = await lab.run(unitSpec(missing, 1));
    assert.equal(outcome.status, 'budget_exceeded');
    const [check] = trace.iterations[0]!.planChecks;
    assert.equal(check!.action, 'rejected');
    assert.deepEqual(check!.rules, ['missing_module']);
    assert.match(JSON.stringify(check!.problems), /picorv64\.v\\" does not exist in the checkout/);
    const task = trace.iterations[0]!.tasks[0]!;
    assert.equal(task.failure_reason, 'unit_test_bad_module_path', 'kept after the retries, it fails before any build');
  });
});
