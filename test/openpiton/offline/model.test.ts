/**
 * The model itself, without processes: every calibration row's verdict and simulated time come out
 * exactly as measured, and the cost model moves the way the rows say it does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CACHES } from '../../../mace/openpiton/geometry.ts';
import { maskThreads, simulate } from '../../../mace/openpiton/offline/model/behaviour.ts';
import { findProgram } from '../../../mace/openpiton/offline/model/catalog.ts';
import { effectiveCaches, type Design } from '../../../mace/openpiton/offline/model/design.ts';
import { buildSeconds, runSeconds, tileCycles } from '../../../mace/openpiton/offline/model/timing.ts';
import { loadCalibrationTable, type CalibrationRow } from '../../../mace/openpiton/offline/calibration/table.ts';

function design(row: Pick<CalibrationRow, 'core' | 'xTiles' | 'yTiles' | 'network' | 'configRtl' | 'caches'>): Design {
  return {
    core: row.core,
    xTiles: row.xTiles,
    yTiles: row.yTiles,
    network: row.network,
    defines: row.configRtl,
    caches: effectiveCaches(row.caches),
    buildArgs: ['--no-timing'],
    finishMaskBits: 32,
    coreInstantiated: true,
  };
}

const rows = loadCalibrationTable();

describe('calibration rows through the model', () => {
  for (const row of rows.filter((r) => r.run && r.buildOk !== false)) {
    it(`${row.id}: ${row.run!.verdict}${row.run!.simTime ? ` at ${row.run!.simTime}` : ''}`, () => {
      const run = row.run!;
      const program = findProgram(run.precompiled ? run.diag.replace(/\.[^.]*$/, '') : run.diag);
      assert.ok(program, `the catalog knows ${run.diag}`);
      const outcome = simulate(program, design(row), {
        finishMask: run.finishMask || null,
        rtlTimeout: run.rtlTimeout ?? 50_000,
        maxCycle: run.maxCycle ?? null,
      });
      if (run.verdict === 'killed') {
        // Still simulating when the real run was stopped: the model's run takes longer than that.
        assert.ok(runSeconds(row.core, row.xTiles * row.yTiles, outcome.cycles) > run.killAfterS!);
        assert.ok(outcome.maskTruncated, 'a 16-tile mask overflows the 32-bit register');
        return;
      }
      assert.equal(outcome.verdict, run.verdict);
      if (run.simTime !== undefined) assert.equal(outcome.time, run.simTime);
    });
  }
});

const pico22 = design({
  core: 'pico',
  xTiles: 2,
  yTiles: 2,
  network: '2dmesh_config',
  configRtl: ['MINIMAL_MONITORING', 'CONFIG_DISABLE_BIST_CLEAR'],
  caches: DEFAULT_CACHES,
});
const last = (d: Design, name: string) => Math.max(...tileCycles(findProgram(name)!, d).finish);
const withCache = (d: Design, cache: keyof Design['caches'], size: number, ways = 4): Design => ({
  ...d,
  caches: { ...d.caches, [cache]: [size, ways] },
});

describe('finish mask', () => {
  it('reads one hex digit per tile slot (bit 4·tile + thread) into a register of the given width', () => {
    assert.deepEqual(maskThreads('1111', 32), { threads: [0, 4, 8, 12], truncated: false });
    assert.deepEqual(maskThreads(null, 32), { threads: [0], truncated: false });
    assert.equal(maskThreads('1'.repeat(8), 32).truncated, false);
    assert.equal(maskThreads('1'.repeat(9), 32).truncated, true);
    assert.equal(maskThreads('1'.repeat(16), 64).truncated, false);
    assert.deepEqual(maskThreads('xyz', 32), { threads: [], truncated: false });
  });

  it('passes an empty mask at the first good trap, as the monitor checks it only then', () => {
    const outcome = simulate(findProgram('addi.S')!, pico22, { finishMask: '0', rtlTimeout: 50_000, maxCycle: null });
    assert.equal(outcome.verdict, 'pass');
    assert.equal(outcome.time, 5_162_250);
  });
});

describe('cost model', () => {
  it('a bigger L2 never makes a program that fits slower to walk, and too small an L2 costs misses', () => {
    const times = [32768, 65536, 131072, 262144].map((s) => last(withCache(pico22, 'l2', s), 'memwalk160k.S'));
    assert.ok(times[0]! > times[1]!, 'a 128 KB total L2 misses on the 160 KB walk');
    assert.ok(times[1]! <= times[2]! && times[2]! <= times[3]!, 'beyond fitting, only the clear of more sets costs');
  });

  it('the L1.5 only ever helps as it grows', () => {
    const times = [2048, 4096, 8192, 16384, 32768].map((s) => last(withCache(pico22, 'l15', s), 'memwalk16k.S'));
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! <= times[i - 1]!, `${times}`);
  });

  it("PicoRV32's L1I and L1D change nothing", () => {
    const base = last(pico22, 'memwalk16k.S');
    assert.equal(last(withCache(pico22, 'l1d', 2048, 2), 'memwalk16k.S'), base);
    assert.equal(last(withCache(pico22, 'l1i', 4096, 1), 'memwalk16k.S'), base);
  });

  it('more tiles take longer, to build and to finish', () => {
    const mesh = (x: number, y: number): Design => ({ ...pico22, xTiles: x, yTiles: y });
    const sizes = [mesh(1, 1), mesh(2, 1), mesh(2, 2), mesh(4, 2), mesh(4, 4)];
    const finish = sizes.map((d) => last(d, 'addi.S'));
    const builds = sizes.map(buildSeconds);
    for (let i = 1; i < sizes.length; i++) {
      assert.ok(finish[i]! > finish[i - 1]!, `finish ${finish}`);
      assert.ok(builds[i]! > builds[i - 1]!, `builds ${builds}`);
    }
  });

  it('fits every real build time within a factor of 1.6 (the early builds ran on a busier machine)', () => {
    for (const row of rows.filter((r) => r.buildOk && r.buildSeconds && !r.note.includes('concurrent'))) {
      const ratio = buildSeconds(design(row)) / row.buildSeconds!;
      assert.ok(
        ratio > 1 / 1.6 && ratio < 1.6,
        `${row.id}: model ${buildSeconds(design(row)).toFixed(1)} s, real ${row.buildSeconds} s`,
      );
    }
  });
});
