/**
 * The data-heavy gate program on the offline model: through the adapter, an offline checkout gives
 * matmul_rv32.S the finish times measured on real OpenPiton for every measured geometry (the
 * calibration rows, compared as `mace offline calibrate` compares them), and over a grid of cache
 * geometries the times move in the directions the model's README documents.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { calibrate } from '../../../mace/openpiton/offline/calibration/calibrate.ts';
import { loadCalibrationTable } from '../../../mace/openpiton/offline/calibration/table.ts';
import { initOfflineCheckout } from '../../../mace/openpiton/offline/checkout.ts';
import { simulate } from '../../../mace/openpiton/offline/model/behaviour.ts';
import { findProgram } from '../../../mace/openpiton/offline/model/catalog.ts';
import type { Design } from '../../../mace/openpiton/offline/model/design.ts';
import { DEFAULT_CACHES, type CacheName } from '../../../mace/openpiton/geometry.ts';
import { Workspace } from '../../../mace/openpiton/workspace.ts';
import { tempDir } from '../../helpers.ts';
import { testEnv } from '../fake-checkout.ts';

const MATMUL_ROWS = loadCalibrationTable().filter((row) => row.run?.diag.startsWith('matmul_'));

describe('matmul_rv32.S: the measured PicoRV32 times', () => {
  it('come out exactly on an offline checkout, row by row, through the adapter', async () => {
    assert.ok(MATMUL_ROWS.length >= 8, 'the table holds the real matmul runs');
    const { root } = await initOfflineCheckout(join(tempDir('mace-offline-matmul-'), 'openpiton'), { speed: 0 });
    const reports = await calibrate(new Workspace(root, { env: testEnv() }), MATMUL_ROWS, { speed: 0 });
    for (const report of reports) {
      assert.equal(report.outcome, 'agree', `${report.id}: ${report.why}`);
      assert.equal(report.simTime?.observed, report.simTime?.real, report.id);
    }
  });
});

type Geometry = readonly [number, number];

function design(core: 'pico' | 'ariane', caches: Partial<Record<CacheName, Geometry>>): Design {
  return {
    core,
    xTiles: 2,
    yTiles: 2,
    network: '2dmesh_config',
    defines: core === 'pico' ? ['MINIMAL_MONITORING', 'CONFIG_DISABLE_BIST_CLEAR'] : ['MINIMAL_MONITORING'],
    caches: { ...DEFAULT_CACHES, ...caches },
    buildArgs: ['--no-timing'],
    finishMaskBits: 32,
    coreInstantiated: true,
  };
}

/** The simulated finish time of a full-mask run under the recommended -rtl_timeout, which it must pass. */
function finish(core: 'pico' | 'ariane', caches: Partial<Record<CacheName, Geometry>>): number {
  const program = findProgram(core === 'pico' ? 'matmul_rv32.S' : 'matmul_rv64.S')!;
  const outcome = simulate(program, design(core, caches), {
    finishMask: '1111',
    rtlTimeout: 1_000_000,
    maxCycle: null,
  });
  assert.equal(outcome.verdict, 'pass', `${core} ${JSON.stringify(caches)}`);
  return outcome.time;
}

const L15_SIZES = [2048, 4096, 8192, 16384, 32768, 65536];
const L2_SIZES = [8192, 16384, 32768, 65536, 131072, 262144];
const WAYS = [4, 8, 16];
/** Each hart's data, 9984 bytes, needs L2 slices of at least this size on 2x2 (the mesh holds 4 copies). */
const L2_HOLDS_DATA = 16384;

const nonIncreasing = (times: readonly number[]) => times.every((t, i) => i === 0 || t <= times[i - 1]!);
const nonDecreasing = (times: readonly number[]) => times.every((t, i) => i === 0 || t >= times[i - 1]!);

describe('matmul on the model: monotone in each cache', () => {
  it('PicoRV32: a bigger L1.5 is never slower, and one that holds the data saves over 5 %', () => {
    for (const l2 of L2_SIZES)
      for (const ways of WAYS) {
        const times = L15_SIZES.map((size) => finish('pico', { l15: [size, ways], l2: [l2, 4] }));
        assert.ok(nonIncreasing(times), `L1.5 ${ways}-way, L2 ${l2}: ${times}`);
      }
    assert.ok(finish('pico', { l15: [16384, 4] }) < 0.95 * finish('pico', {}));
  });

  it('PicoRV32: more L1.5 ways cost the measured 2764 cycles where the data does not fit, nothing where it does', () => {
    for (const size of L15_SIZES) {
      const [four, eight, sixteen] = WAYS.map((ways) => finish('pico', { l15: [size, ways] }));
      assert.equal(eight, sixteen);
      assert.equal(eight! - four!, size >= 16384 ? 0 : 2764 * 500, `L1.5 ${size}`);
    }
  });

  it('PicoRV32: the L2 costs only its clear once it holds the data, and misses below that', () => {
    for (const l15 of [8192, 16384])
      for (const ways of [4, 8]) {
        const times = L2_SIZES.map((size) => finish('pico', { l15: [l15, 4], l2: [size, ways] }));
        const holding = times.filter((_, i) => L2_SIZES[i]! >= L2_HOLDS_DATA);
        const short = times.filter((_, i) => L2_SIZES[i]! < L2_HOLDS_DATA);
        assert.ok(nonDecreasing(holding), `more sets only add clear cycles: ${holding}`);
        assert.ok(Math.min(...short) > Math.max(...holding), `an L2 that cannot hold the data is slowest: ${times}`);
      }
    const half = finish('pico', { l2: [32768, 4] });
    assert.ok(half <= finish('pico', {}) && half > 0.999 * finish('pico', {}), 'halving the L2 changes little');
  });

  it('Ariane (extrapolated): a bigger L1D or L1.5 is never slower, and both together are best', () => {
    for (const l15 of [8192, 16384, 32768]) {
      const times = [4096, 8192, 16384, 32768].map((size) => finish('ariane', { l15: [l15, 4], l1d: [size, 4] }));
      assert.ok(nonIncreasing(times), `L1D under a ${l15} L1.5: ${times}`);
    }
    for (const l1d of [8192, 16384]) {
      const times = L15_SIZES.map((size) => finish('ariane', { l15: [size, 4], l1d: [l1d, 4] }));
      assert.ok(nonIncreasing(times), `L1.5 over a ${l1d} L1D: ${times}`);
    }
    const base = finish('ariane', {});
    const l1d = finish('ariane', { l1d: [16384, 4] });
    const l15 = finish('ariane', { l15: [16384, 4] });
    const both = finish('ariane', { l15: [16384, 4], l1d: [16384, 4] });
    assert.ok(both < Math.min(l1d, l15) && Math.max(l1d, l15) < base, `${base} ${l1d} ${l15} ${both}`);
  });
});
