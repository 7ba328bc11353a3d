import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SEEDED_FAULTS, breakTask, faultApplies, firstPlanBreaker } from '../../harness/faults/seeded.ts';
import { plantSourceFault, restoreSourceFaults, sourceFaultProblems } from '../../harness/faults/source.ts';
import { InputError } from '../../mace/errors.ts';
import { makeTask } from '../../mace/spec.ts';
import { tempDir } from '../helpers.ts';

const fault = (name: string) => SEEDED_FAULTS.find((f) => f.name === name)!;
const FILE = 'piton/design/chip/tile/pico/rtl/core.v';
const ORIGINAL = 'module core;\n  assign ready = valid;\n  assign other = 1;\nendmodule\n';

function checkout(dir: string, name: string): string {
  const root = join(dir, name);
  mkdirSync(join(root, 'piton/design/chip/tile/pico/rtl'), { recursive: true });
  writeFileSync(join(root, FILE), ORIGINAL);
  return root;
}

describe('seeded faults', () => {
  const config = makeTask({ id: 'build', kind: 'config', config_rtl: ['CONFIG_DISABLE_BIST_CLEAR'] });

  it('break config and workload tasks only', () => {
    assert.deepEqual(breakTask(fault('fpga_synth'), config).config_rtl, [
      'CONFIG_DISABLE_BIST_CLEAR',
      'PITON_FPGA_SYNTH',
    ]);
    assert.equal(breakTask(fault('drop_bist'), config).config_rtl, null);
    assert.equal(breakTask(fault('crossbar'), config).network, 'xbar_config');
    assert.deepEqual(breakTask(fault('l1d_eight_way'), config).caches, { l1d: [8192, 8] });
    const unit = makeTask({ id: 'ut', kind: 'unit_test', instruction: FILE });
    for (const f of SEEDED_FAULTS) assert.deepEqual(breakTask(f, unit), unit);
  });

  it('apply where their core and mesh allow', () => {
    assert.ok(faultApplies(fault('drop_bist'), 'pico', [2, 2]));
    assert.ok(!faultApplies(fault('drop_bist'), 'ariane', [2, 2]));
    assert.ok(faultApplies(fault('crossbar'), 'ariane', [2, 2]));
    assert.ok(!faultApplies(fault('crossbar'), 'ariane', [4, 1]));
    assert.ok(!faultApplies(fault('l1d_eight_way'), 'pico', [2, 2]));
  });

  it('break the first plan only', () => {
    const hook = firstPlanBreaker(fault('drop_bist'));
    assert.equal(hook(0, [config])[0]!.config_rtl, null);
    assert.deepEqual(hook(1, [config]), [config]);
  });
});

describe('source faults', () => {
  const dir = tempDir();
  const edit = { path: FILE, old: 'assign ready = valid;', new: 'assign ready = validx;' };

  it('are planted in every checkout and restored', () => {
    const roots = [checkout(dir, 'a'), checkout(dir, 'b')];
    const restore = plantSourceFault(roots, [edit, { path: FILE, old: 'assign other = 1;', new: 'assign other = 0;' }]);
    for (const root of roots) {
      const text = readFileSync(join(root, FILE), 'utf8');
      assert.match(text, /validx;/);
      assert.match(text, /other = 0;/);
    }
    restore();
    for (const root of roots) assert.equal(readFileSync(join(root, FILE), 'utf8'), ORIGINAL);
  });

  it('left behind by a crash are undone by the next start', () => {
    const root = checkout(dir, 'crashed');
    plantSourceFault([root], [edit]); // no restore: the process "died" here
    assert.match(readFileSync(join(root, FILE), 'utf8'), /validx/);
    restoreSourceFaults(root);
    assert.equal(readFileSync(join(root, FILE), 'utf8'), ORIGINAL);
    restoreSourceFaults(root);
    assert.equal(readFileSync(join(root, FILE), 'utf8'), ORIGINAL, 'restoring twice changes nothing');
  });

  it('need their text exactly once; a checkout that lacks it leaves every checkout as it was', () => {
    const good = checkout(dir, 'good');
    const bad = checkout(dir, 'bad');
    writeFileSync(
      join(bad, FILE),
      ORIGINAL.replace('assign ready = valid;', 'assign ready = valid; assign ready = valid;'),
    );
    assert.deepEqual(sourceFaultProblems(good, [edit]), []);
    assert.match(sourceFaultProblems(bad, [edit])[0]!, /occurs 2 times in .*core\.v .*exactly once/);
    assert.throws(() => plantSourceFault([good, bad], [edit]), InputError);
    assert.equal(readFileSync(join(good, FILE), 'utf8'), ORIGINAL);
  });
});
