import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  analyticalModel,
  cacheArea,
  cacheArrays,
  cactiModel,
  chooseAreaModel,
  designArea,
  findCacti,
  GeometryError,
} from '../../mace/codesign/area.ts';
import { designOf } from '../../mace/codesign/design.ts';
import { tempDir } from '../helpers.ts';

describe('cache arrays', () => {
  it('splits each default cache into a data and a tag array as OpenPiton lays them out', () => {
    assert.deepEqual(cacheArrays('l1i', 16384, 4), {
      data: { depth: 1024, width: 128 },
      tag: { depth: 256, width: 120 },
    });
    assert.deepEqual(cacheArrays('l1d', 8192, 4), {
      data: { depth: 512, width: 128 },
      tag: { depth: 128, width: 124 },
    });
    assert.deepEqual(cacheArrays('l15', 8192, 4), {
      data: { depth: 512, width: 128 },
      tag: { depth: 128, width: 124 },
    });
    assert.deepEqual(cacheArrays('l2', 65536, 4), {
      data: { depth: 1024, width: 512 },
      tag: { depth: 256, width: 112 },
    });
  });

  it('refuses a geometry that is not a whole power-of-two number of sets', () => {
    assert.throws(() => cacheArrays('l2', 65536, 3), GeometryError);
    assert.throws(
      () => cacheArrays('l15', 32, 4),
      /l15 32,4 is not a whole power-of-two number of 4-way sets of 16-byte lines/,
    );
    assert.throws(() => cacheArrays('l1d', 12288, 4), GeometryError);
  });
});

describe('analytical area', () => {
  it('gives the default caches 877,568 square microns per tile and 3,510,272 on a 2x2 mesh', async () => {
    const perCache = await Promise.all(
      (['l1i', 'l1d', 'l15', 'l2'] as const).map(
        async (c) => (await cacheArea(c, ...designOf().caches[c], analyticalModel)).areaUm2,
      ),
    );
    assert.deepEqual(perCache, [161_792, 81_408, 81_408, 552_960]);
    const area = await designArea(designOf(), 4, analyticalModel);
    assert.equal(area.areaUm2, 3_510_272);
    assert.equal(area.source, 'analytical');
  });

  it('prices the designs the original study compared', async () => {
    const area = async (caches: Parameters<typeof designOf>[0]) =>
      (await designArea(designOf(caches), 4, analyticalModel)).areaUm2;
    assert.equal(await area({ l15: [16384, 4], l2: [32768, 4] }), 2_727_936);
    assert.equal(await area({ l15: [16384, 4], l2: [32768, 4], l1d: [16384, 4] }), 3_049_472);
    assert.equal(await area({ l1d: [16384, 4] }), 3_831_808);
  });
});

describe('CACTI', () => {
  // CACTI is not installed here: a fake binary stands at that edge and prints CACTI 7's lines.
  function fakeCacti(body: string): string {
    const dir = tempDir('mace-cacti-');
    const path = join(dir, 'cacti');
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  }

  it('is found through MACE_CACTI or PATH, and is not used when neither has it', async () => {
    const path = fakeCacti('exit 0');
    assert.equal(await findCacti({ MACE_CACTI: '/opt/cacti/cacti', PATH: '' }), '/opt/cacti/cacti');
    assert.equal(await findCacti({ PATH: join(path, '..') }), path);
    assert.equal((await chooseAreaModel({ PATH: tempDir('mace-empty-') })).source, 'analytical');
  });

  it('reads the data array area and the read energy from its report, once per array', async () => {
    const log = join(tempDir('mace-cacti-log-'), 'calls');
    const path = fakeCacti(
      `echo call >> ${log}\ngrep -q 'size (bytes) 8192$' "$2" && a=0.0125 || a=0.0025\n` +
        `echo "  Data array: Area (mm2): $a"\necho "  Total dynamic read energy per access (nJ): 0.0042"`,
    );
    const model = cactiModel(path);
    const l15 = await cacheArea('l15', 8192, 4, model);
    assert.equal(l15.areaUm2, 12_500 + 2_500);
    assert.equal(l15.readEnergyNj, 0.0084);
    await designArea(designOf(), 4, model);
    // l1d and l15 share both arrays; every distinct array is priced once.
    assert.equal(readFileSync(log, 'utf8').trim().split('\n').length, 6);
  });

  it('says which array it could not price when CACTI fails', async () => {
    const model = cactiModel(fakeCacti('echo "ERROR: cache size too small" >&2; exit 1'));
    await assert.rejects(cacheArea('l2', 65536, 4, model), /CACTI \(.*cacti\) cannot price a 1024x512 array/);
  });
});
