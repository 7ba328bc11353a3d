/**
 * PitonConfig identity: build ids match the original Python adapter's (vectors computed with Python's
 * json.dumps(sort_keys=True, separators=(",", ":")) and hashlib), every identity field counts, and
 * nothing else does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildId,
  configKey,
  makeConfig,
  pythonJson,
  simsFlags,
  wayViolations,
  type PitonConfigInput,
} from '../../mace/openpiton/config.ts';

describe('build ids', () => {
  it('match the original for the default and a PicoRV32 2x2 configuration', () => {
    assert.equal(buildId(makeConfig()), 'mace_ced9398212fd');
    const pico = makeConfig({
      core: 'pico',
      x_tiles: 2,
      y_tiles: 2,
      config_rtl: ['MINIMAL_MONITORING', 'CONFIG_DISABLE_BIST_CLEAR'],
    });
    assert.equal(buildId(pico), 'mace_c7b769a7b19e');
    assert.equal(buildId(makeConfig()).length, 17);
    assert.match(configKey(makeConfig()), /^[0-9a-f]{64}$/);
  });

  it('escape non-ASCII as Python ensure_ascii does (a surrogate pair per astral character)', () => {
    const diff = '--- a/x.v\n+++ b/x.v\n+// caf\u00e9 \u{1F600} "q" \\ \t';
    assert.equal(buildId(makeConfig({ diff })), 'mace_926ac9db7976');
    assert.equal(pythonJson('\u00e9\u{1F600}'), '"\\u00e9\\ud83d\\ude00"');
    assert.equal(pythonJson({ b: [1, 'x'], a: null }), '{"a":null,"b":[1,"x"]}');
  });

  it('change with every identity field', () => {
    const base = buildId(makeConfig());
    const changes: PitonConfigInput[] = [
      { sys: 'pico_reset_ut' },
      { core: 'pico' },
      { x_tiles: 2 },
      { y_tiles: 2 },
      { network_config: 'xbar_config' },
      { config_rtl: ['MINIMAL_MONITORING', 'CONFIG_DISABLE_BIST_CLEAR'] },
      { caches: { l1d: [16384, 4] } },
      { caches: { l2: [65536, 8] } },
      { extra_flags: ['-vlt_build_args=--coverage-line'] },
      { source_rev: 'abc' },
      { ariane_rev: 'def' },
      { verilator_version: 'Verilator 5.006' },
      { diff: '+x' },
    ];
    const ids = changes.map((change) => buildId(makeConfig(change)));
    for (const [i, id] of ids.entries()) assert.notEqual(id, base, JSON.stringify(changes[i]));
    assert.equal(new Set(ids).size, ids.length);
  });

  it('do not change with insertion order, define order or a written-out default cache', () => {
    const a = makeConfig({
      caches: { l2: [65536, 4], l1d: [16384, 4] },
      config_rtl: ['MINIMAL_MONITORING', 'CONFIG_A'],
    });
    const b = makeConfig({ config_rtl: ['CONFIG_A', 'MINIMAL_MONITORING'], caches: { l1d: [16384, 4] } });
    assert.equal(configKey(a), configKey(b));
    assert.equal(buildId(makeConfig({ caches: { l1i: [16384, 4] } })), buildId(makeConfig()));
    assert.notEqual(
      buildId(makeConfig({ extra_flags: ['-a', '-b'] })),
      buildId(makeConfig({ extra_flags: ['-b', '-a'] })),
      'extra flags are passed in order, so their order counts',
    );
  });
});

describe('sims flags', () => {
  it('expand the default configuration in the original order', () => {
    assert.equal(
      simsFlags(makeConfig()).join(' '),
      '-sys=manycore -x_tiles=1 -y_tiles=1 -network_config=2dmesh_config -ariane -config_rtl=MINIMAL_MONITORING ' +
        '-config_l15_size=8192 -config_l15_associativity=4 -config_l1d_size=8192 -config_l1d_associativity=4 ' +
        '-config_l1i_size=16384 -config_l1i_associativity=4 -config_l2_size=65536 -config_l2_associativity=4',
    );
  });

  it('give PicoRV32 the Debian cross triple and sparc no core flag', () => {
    assert.deepEqual(simsFlags(makeConfig({ core: 'pico' })).slice(4, 6), [
      '-pico',
      '-rv32_target_triple=riscv64-unknown-elf',
    ]);
    assert.equal(simsFlags(makeConfig({ core: 'sparc' }))[4], '-config_rtl=MINIMAL_MONITORING');
  });

  it('give a unit-test system only its name and the extra flags', () => {
    assert.deepEqual(simsFlags(makeConfig({ sys: 'ifu_esl_lfsr', extra_flags: ['-some_flag'] })), [
      '-sys=ifu_esl_lfsr',
      '-some_flag',
    ]);
  });

  it('keep MINIMAL_MONITORING for manycore builds', () => {
    assert.deepEqual(makeConfig({ config_rtl: ['CONFIG_DISABLE_BIST_CLEAR'] }).config_rtl, [
      'MINIMAL_MONITORING',
      'CONFIG_DISABLE_BIST_CLEAR',
    ]);
  });
});

describe('Generic Tile cores', () => {
  it('put -generic_core=<name> where the core flag goes, and add the name to the identity only for them', () => {
    const femto = makeConfig({ core: 'generic', generic_core: 'femto', x_tiles: 2, y_tiles: 2 });
    assert.deepEqual(simsFlags(femto).slice(3, 6), [
      '-network_config=2dmesh_config',
      '-generic_core=femto',
      '-config_rtl=MINIMAL_MONITORING',
    ]);
    assert.notEqual(
      buildId(femto),
      buildId(makeConfig({ core: 'generic', generic_core: 'ibex', x_tiles: 2, y_tiles: 2 })),
    );
    assert.equal(makeConfig({ core: 'pico' }).generic_core, '');
    assert.equal(buildId(makeConfig()), 'mace_ced9398212fd', 'the built-in cores keep their ids');
  });

  it('need a name, and only they take one', () => {
    assert.throws(() => makeConfig({ core: 'generic' }), /generic_core: core generic needs the generic_core name/);
    assert.throws(() => makeConfig({ core: 'pico', generic_core: 'femto' }), /generic_core is only for core generic/);
    assert.throws(() => makeConfig({ core: 'generic', generic_core: 'Femto' }), /lower-case identifier/);
  });
});

describe('way rule', () => {
  it('names each Ariane L1 with more ways than the L1.5, and nothing for other cores', () => {
    const caches = { l1d: [16384, 8], l1i: [16384, 8] } as const;
    assert.deepEqual(wayViolations(makeConfig({ caches })), [
      "l1d has 8 ways, more than the L1.5's 4",
      "l1i has 8 ways, more than the L1.5's 4",
    ]);
    assert.deepEqual(wayViolations(makeConfig({ core: 'pico', caches })), []);
    assert.deepEqual(wayViolations(makeConfig({ caches: { ...caches, l15: [16384, 8] } })), []);
  });
});
