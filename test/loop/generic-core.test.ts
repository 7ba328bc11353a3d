/**
 * A Generic Tile core end to end on the offline checkouts with the scripted agent: the descriptor
 * lays the core out with a wrapper skeleton; the plan check sends config tasks back while the
 * wrapper is the skeleton (wrapper_skeleton); an rtl task writes the wrapper and the run passes. A
 * descriptor the tile cannot host, or a checkout without a Generic Tile, ends the run as
 * unsupported_core before any LLM call.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openCheckouts } from '../../mace/checkouts.ts';
import { wrapperSkeleton } from '../../mace/openpiton/generic-tile.ts';
import { genericCorePaths } from '../../mace/openpiton/geometry.ts';
import { makeSpec, type MaceSpecInput } from '../../mace/spec.ts';
import { closeAllStores } from '../../mace/store/store.ts';
import { FEMTO, writeCoreFolder } from '../fixtures/generic-core.ts';
import { fakeCheckout, testEnv } from '../openpiton/fake-checkout.ts';
import { OfflineLab } from './support.ts';

after(closeAllStores);
const lab = new OfflineLab();

const genericSpec = (generic_core: MaceSpecInput['generic_core'], extra: Partial<MaceSpecInput> = {}) =>
  makeSpec({
    workloads: ['addi.S'],
    objective: 'Bring up the femto core through the Generic Tile on a 2x2 mesh; addi.S must pass on every tile.',
    core: 'generic',
    generic_core,
    target_mesh: [2, 2],
    budget: { max_iterations: 2 },
    ...extra,
  });

describe('a Generic Tile core in the loop', () => {
  it('sends config tasks back while the wrapper is the skeleton; an rtl task writes it and the run passes', async () => {
    const spec = genericSpec(writeCoreFolder());
    const { outcome, trace } = await lab.run(spec, { options: { rtl_edits: true } });
    assert.equal(outcome.status, 'passed', outcome.reason);
    const it0 = trace.iterations[0]!;
    const [first, retry] = it0.planChecks;
    assert.equal(first!.action, 'rejected');
    assert.deepEqual(first!.rules, ['wrapper_skeleton']);
    assert.equal(retry!.action, 'accepted');
    const [task] = it0.tasks;
    assert.equal(task!.kind, 'rtl');
    assert.ok(task!.sims_flags?.includes('-generic_core=femto'));
    assert.match(task!.rtl_diff ?? '', /^\+ {4}femto_core core \($/m);
    assert.deepEqual(
      task!.programs?.map((p) => [p[0], p[1]]),
      [['addi.S', 'pass']],
    );

    for (const root of await lab.checkoutRoots()) {
      const paths = genericCorePaths('femto');
      assert.equal(
        readFileSync(join(root, paths.wrapper), 'utf8'),
        wrapperSkeleton(spec.generic_core!),
        'the checkout keeps the skeleton; the written wrapper is the run’s edit',
      );
      assert.match(readFileSync(join(root, paths.flist), 'utf8'), /^femto_wrapper\.v\nrtl\/femto_core\.v\n$/);
    }
  });

  it('without RTL edits nothing can write the wrapper: every plan is sent back and the builds time out', async () => {
    const { outcome, trace } = await lab.run(genericSpec(writeCoreFolder(), { budget: { max_iterations: 1 } }));
    assert.equal(outcome.status, 'budget_exceeded');
    const checks = trace.iterations[0]!.planChecks;
    assert.deepEqual(
      checks.map((c) => c.action),
      ['rejected', 'rejected', 'kept'],
    );
    assert.equal(trace.iterations[0]!.tasks.at(-1)!.run_verdict, 'timeout');
  });

  it('ends as unsupported_core when the tile cannot host the descriptor, before any LLM call', async () => {
    const rv64 = genericSpec({ ...FEMTO, isa: 'rv64gc', sources: [] });
    const { outcome, trace } = await lab.run(rv64);
    assert.equal(outcome.status, 'unsupported_core');
    assert.match(
      outcome.reason!,
      /the Generic Tile cannot host generic core femto: ISA rv64gc: .*a 64-bit core needs a tile of its own/,
    );
    assert.equal(trace.iterations.length, 0);
    assert.equal(trace.runLlmCalls.length, 0);

    const axi = genericSpec(
      writeCoreFolder({
        ...FEMTO,
        ports: FEMTO.ports!.filter((p) => !p.role?.startsWith('mem_') || p.role === 'mem_addr'),
      }),
    );
    const axiRun = await lab.run(axi);
    assert.equal(axiRun.outcome.status, 'unsupported_core');
    assert.match(axiRun.outcome.reason!, /no port has the role mem_valid: .*needs a transducer of its own first/);
  });

  it('ends as unsupported_core on a checkout without a Generic Tile, as OpenPiton itself is', async () => {
    const spec = genericSpec(writeCoreFolder());
    const checkouts = openCheckouts([fakeCheckout()], 'generic', { env: testEnv() });
    const { outcome } = await lab.run(spec, { checkouts });
    assert.equal(outcome.status, 'unsupported_core');
    assert.match(
      outcome.reason!,
      /has no Generic Tile .*OpenPiton itself has none: its sims has no -generic_core flag/,
    );
  });
});
