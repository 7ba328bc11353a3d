/**
 * The calibration check through the adapter: rows of every kind of real outcome replay on an offline
 * checkout with the same verdict, failure reason and simulated time. The whole table (95 rows, about
 * two minutes) runs when MACE_FULL_CALIBRATION=1; `mace offline calibrate` runs it too.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { calibrate, measureOverhead, summarise } from '../../../mace/openpiton/offline/calibration/calibrate.ts';
import { loadCalibrationTable } from '../../../mace/openpiton/offline/calibration/table.ts';
import { initOfflineCheckout } from '../../../mace/openpiton/offline/checkout.ts';
import { Workspace } from '../../../mace/openpiton/workspace.ts';
import { runCli, tempDir } from '../../helpers.ts';
import { testEnv } from '../fake-checkout.ts';

/**
 * One row of each kind: pass, timeout, max cycles, bad trap, build errors, cache effects, refusals, a
 * kill (OpenSPARC's max cycles is in adapter.test.ts).
 */
const REPRESENTATIVE = [
  'p11-addi',
  'p11-nobist-addi',
  'p11-piton-fpga-synth',
  'p12-xbar',
  'p22-amoadd_w',
  'p22-addi-nomask',
  'p22-l15-16384x4-memwalk16k',
  'p22-l2-32768x4-memwalk160k',
  'p11-l15-8192x2-memwalk16k',
  'p11-addi-maxcycle6000',
  'p11-l15-0x4-addi',
  'a11-rv64ui-p-addi',
  'a22-rv64ui-p-addi',
  'a11-l1d-8192x8-rv64ui-p-addi',
  'p44-addi-rtl1m',
];

/** Small, but above 0 so the row whose real run was stopped at 300 s is stopped here too. */
const speed = 0.005;

describe('calibration through the adapter', async () => {
  const { root } = await initOfflineCheckout(join(tempDir('mace-offline-calibration-'), 'openpiton'), { speed });
  const workspace = new Workspace(root, { env: testEnv() });
  const table = loadCalibrationTable();
  const full = process.env.MACE_FULL_CALIBRATION === '1';
  const rows = full ? table : table.filter((row) => REPRESENTATIVE.includes(row.id));

  it(`agrees with the real measurements on ${full ? 'every row' : 'a row of every kind (MACE_FULL_CALIBRATION=1 for all)'}`, async () => {
    assert.equal(rows.length, full ? table.length : REPRESENTATIVE.length);
    const overheadS = await measureOverhead(workspace, rows[0]!);
    const reports = await calibrate(workspace, rows, { speed, overheadS });
    const disagreements = reports.filter((r) => r.outcome === 'disagree').map((r) => `${r.id}: ${r.why}`);
    assert.deepEqual(disagreements, []);
    const summary = summarise(reports);
    assert.equal(summary.exactSimTimes, summary.simTimes);
    assert.deepEqual(
      reports.filter((r) => r.outcome === 'refused').map((r) => r.id),
      rows.filter((r) => /l15-0x4|a11-l1d-8192x8/.test(r.id)).map((r) => r.id),
      'only the invalid geometry and the way rule are refused, by the adapter',
    );
    assert.equal(reports.find((r) => r.id === 'p44-addi-rtl1m')?.observed, 'killed');
  });

  it('is what `mace offline calibrate` prints, and --rows that match nothing are a usage error', async () => {
    const none = await runCli('offline', 'calibrate', '--piton-root', root, '--rows', '^nothing$');
    assert.equal(none.code, 2);
    assert.match(none.stderr, /matches no calibration row/);
    const notCheckout = await runCli('offline', 'calibrate', '--piton-root', tempDir());
    assert.equal(notCheckout.code, 2);
    assert.match(notCheckout.stderr, /no piton\/piton_settings\.bash there/);
  });
});
