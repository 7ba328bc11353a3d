/**
 * The parsers on the project's own small fixtures (test/fixtures/openpiton/logs) and on every real
 * OpenPiton log in shared/openpiton-logs (OPENPITON_LOGS, default ../shared/openpiton-logs next to
 * the repository), with the verdicts, failure tags and error lines the original adapter gives.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import {
  buildErrors,
  buildFailureReason,
  buildOutputFacts,
  coverageSummary,
  cycles,
  diaglistGroup,
  execCycles,
  failReason,
  firstDivergence,
  isTestbenchPortMismatch,
  maxCycles,
  modelDir,
  needsNoTiming,
  numTiles,
  regressSummary,
  simTime,
  simVerdict,
  simsDie,
  splitLines,
  statusDiag,
  verilatorVersion,
} from '../../mace/openpiton/parse.ts';
import { ROOT } from '../helpers.ts';

const FIXTURES = join(ROOT, 'test/fixtures/openpiton/logs');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

export const REAL_LOGS = process.env.OPENPITON_LOGS ?? resolve(ROOT, '../shared/openpiton-logs');
const haveRealLogs = existsSync(REAL_LOGS);
const real = (name: string) => readFileSync(join(REAL_LOGS, name), 'utf8');
const skipReal = haveRealLogs ? false : `no real OpenPiton logs at ${REAL_LOGS} (set OPENPITON_LOGS)`;

describe('sim verdict (fail-closed)', () => {
  it('lets a FAIL line beat a PASS line in the same text', () => {
    const text = fixture('fail_beats_pass.sim.log');
    assert.equal(simVerdict(text), 'fail');
    assert.equal(failReason(text), 'HIT BAD TRAP');
    assert.equal(simTime(text), 5179750);
  });

  it('reads `timeout happen` without any verdict line as a timeout', () => {
    assert.equal(simVerdict(fixture('timeout_happen_only.sim.log')), 'timeout');
    assert.equal(simTime(fixture('timeout_happen_only.sim.log')), null);
  });

  it('never lets `timeout happen` override a verdict line', () => {
    assert.equal(simVerdict(fixture('pass_then_timeout_happen.sim.log')), 'pass');
  });

  it('calls FAIL(TIMEOUT) a timeout and reads max cycles', () => {
    assert.equal(simVerdict(fixture('fail_timeout.sim.log')), 'timeout');
    assert.equal(failReason(fixture('fail_timeout.sim.log')), 'TIMEOUT');
    const max = fixture('maxcycles.sim.log');
    assert.equal(simVerdict(max), 'maxcycles');
    assert.equal(maxCycles(max), 2000);
    assert.equal(simTime(max), 1000250);
  });

  it('has no verdict for empty or unrelated text', () => {
    assert.equal(simVerdict(''), null);
    assert.equal(simVerdict('Reset complete\n'), null);
    assert.equal(failReason(''), '');
    assert.equal(maxCycles(''), null);
  });

  it('accepts both spacings of the RTL verdict lines', () => {
    assert.equal(simVerdict('1234500 : Simulation -> FAIL(HIT BAD TRAP)'), 'fail');
    assert.equal(simVerdict('179911750: Simulation -> PASS (HIT GOOD TRAP)'), 'pass');
    assert.equal(simVerdict('1234500 : Simulation -> FAIL(timeout in monitor)'), 'timeout');
  });
});

describe('status.log and regression summaries', () => {
  it('reads the diag line with a multi-word status, and the counters', () => {
    assert.deepEqual(statusDiag(fixture('status_unknown_no_status.log')), {
      name: 'hello_world.c-75661',
      status: 'Unknown (No Status)',
    });
    const counted = fixture('status_cycles.log');
    assert.equal(cycles(counted), 6559);
    assert.equal(execCycles(counted), 6012);
    assert.equal(numTiles(counted), 4);
    assert.equal(cycles(fixture('status_unknown_no_status.log')), null);
    assert.equal(statusDiag(''), null);
  });

  it('does not read partial output as a failed regression', () => {
    assert.deepEqual(regressSummary('partial output'), { passed: null, counts: {}, diagCount: null });
  });
});

describe('coverage', () => {
  it('recomputes the percentage the tool rounds down', () => {
    assert.deepEqual(coverageSummary(fixture('coverage_annotate.log')), { hit: 8749, total: 24311, percent: 35.99 });
  });
  it('gives nulls, never zeros, when coverage is missing or failed', () => {
    assert.deepEqual(coverageSummary('verilator_coverage: error'), { hit: null, total: null, percent: null });
    assert.deepEqual(coverageSummary('Total coverage (0/0) 0.00%'), { hit: 0, total: 0, percent: 0 });
  });
});

describe('build output', () => {
  it('tags each failure with the first matching rule, in order', () => {
    assert.equal(buildFailureReason(fixture('build_fail_bad_option.log')), 'verilator_bad_option');
    assert.equal(buildFailureReason(fixture('build_fail_pch_link.log')), 'pch_link_failure');
    assert.equal(buildFailureReason(fixture('build_ok_tail.log')), '');
    assert.equal(buildFailureReason('sims: Caught a SIGDIE. no diag found at x line 3.'), 'sims_die:no diag found');
  });

  it('calls a C compile error followed by make errors a compile error', () => {
    const text = fixture('c_compile_error.log');
    assert.equal(buildFailureReason(text), 'compile_error');
    assert.deepEqual(buildErrors(text), ["diag.c:14:9: error: 'counter' undeclared (first use in this function)"]);
  });

  it('finds nothing to quote in a link failure', () => {
    assert.deepEqual(buildErrors(fixture('build_fail_pch_link.log')), []);
  });

  it('finds an error that comes before hundreds of warning lines, and searches stderr', () => {
    const warnings = Array.from(
      { length: 500 },
      (_, i) => `%Warning-WIDTH: x.v:${i}:1: Operator ASSIGN expects 8 bits`,
    );
    const stdout = [
      "%Error-PINNOTFOUND: manycore_top.tmp.v:361:6: Pin not found: 'async_mux'",
      ...warnings,
      '%Error: Exiting due to 1 error(s)',
    ].join('\n');
    assert.deepEqual(buildErrors(stdout), ["%Error-PINNOTFOUND: manycore_top.tmp.v:361:6: Pin not found: 'async_mux'"]);
    assert.equal(
      buildFailureReason(warnings.join('\n'), '%Error-NEEDTIMINGOPT: pc_cmp.tmp.v:661:5: Use --timing'),
      'verilator_needs_timing_flag',
    );
    assert.deepEqual(buildErrors('', 'foo.c:1:2: fatal error: string.h: No such file or directory'), [
      'foo.c:1:2: fatal error: string.h: No such file or directory',
    ]);
  });

  it('keeps the first `limit` error lines and counts them all', () => {
    const many = Array.from({ length: 30 }, (_, i) => `%Error: chip.v:${i}:6: Duplicate pin connection`).join('\n');
    assert.equal(buildErrors(many, '', 5).length, 5);
    assert.equal(buildOutputFacts(many).errors.length, 20);
    assert.equal(buildOutputFacts(many).errorCount, 30);
  });

  it('tells a testbench port mismatch from a missing-pin warning', () => {
    assert.equal(isTestbenchPortMismatch("%Error-PINNOTFOUND: t.v:56:10: Pin not found: 'mem_valid_WRONG'"), true);
    assert.equal(
      isTestbenchPortMismatch("%Warning-PINMISSING: picorv32.v:2987:4: Cell has missing pin: 'pico_int'"),
      false,
    );
  });

  it('reads the sims die message without its Perl location, and the model directory', () => {
    assert.equal(simsDie(fixture('build_fail_bad_option.log')), 'failed building model');
    assert.equal(simsDie('nothing here'), null);
    assert.equal(modelDir(fixture('build_ok_tail.log')), '.../build/manycore/rel-0.1');
    assert.equal(modelDir(''), null);
  });
});

describe('verilator version', () => {
  it('parses major and minor and says when --no-timing is needed', () => {
    assert.deepEqual(verilatorVersion(fixture('verilator_4038.txt')), [4, 38]);
    assert.equal(needsNoTiming(fixture('verilator_4038.txt')), false);
    assert.deepEqual(verilatorVersion(fixture('verilator_5049.txt')), [5, 49]);
    assert.equal(needsNoTiming(fixture('verilator_5049.txt')), true);
    assert.equal(needsNoTiming(''), false);
    assert.equal(needsNoTiming('verilator: command not found'), false);
  });
});

describe('diaglists', () => {
  const text = fixture('diaglist.txt');

  it('flattens nested groups, applies runargs first, drops comments and lines without a source', () => {
    assert.deepEqual(diaglistGroup(text, 'pico_smoke'), [
      { alias: 'pico-addi', source: 'addi.S', args: [] },
      { alias: 'pico-walk', source: 'memwalk16k.S', args: ['-rtl_timeout', '100000'] },
      { alias: 'pico-amo', source: 'amoadd_w.S', args: ['-pico', '-finish_mask=1111', '-max_cycle=50000'] },
    ]);
    assert.deepEqual(
      diaglistGroup(text, 'pico_amo').map((e) => e.alias),
      ['pico-amo'],
    );
  });

  it('refuses a missing group and a group that is never closed', () => {
    assert.throws(() => diaglistGroup(text, 'nope'), /no group <nope>/);
    assert.throws(() => diaglistGroup(text, 'truncated_group'), /never closed/);
  });
});

describe('first divergence', () => {
  it('gives the first differing line, 1-based', () => {
    assert.deepEqual(firstDivergence('a\nb\nc\n', 'a\nB\nc'), { line: 2, reference: 'b', actual: 'B' });
    assert.deepEqual(firstDivergence(fixture('fail_timeout.sim.log'), fixture('maxcycles.sim.log'))?.line, 1);
  });
  it('gives null for identical texts and for a prefix', () => {
    assert.equal(firstDivergence('a\nb', 'a\nb\n'), null);
    assert.equal(firstDivergence('a\nb\nc', 'a\nb'), null);
    assert.equal(firstDivergence('', ''), null);
  });
  it('splits lines as Python does', () => {
    assert.deepEqual(splitLines('a\r\nb\rc\n'), ['a', 'b', 'c']);
    assert.deepEqual(splitLines(''), []);
  });
});

describe('real OpenPiton logs', { skip: skipReal }, () => {
  it('has a log for every case below', () => {
    assert.ok(readdirSync(REAL_LOGS).length >= 27);
  });

  const verdicts: Record<string, [verdict: string | null, time: number | null]> = {
    'ariane_1x1_rv64ui-p-addi_pass.sim.log': ['pass', 17863750],
    'ariane_1x1_rv64ui-p-addi_pass.sims.log': ['pass', 17863750],
    'ariane_1x1_rv64ui-p-addi_pass.status.log': ['pass', null],
    'pico_1x1_addi_pass.sim.log': ['pass', 3279750],
    'pico_1x1_addi_pass.sims.log': ['pass', 3279750],
    'pico_1x1_addi_badtrap.sim.log': ['fail', 2032750],
    'pico_1x1_addi_maxcycles.sim.log': ['maxcycles', 3000250],
    'pico_1x1_nobist_addi_timeout.sim.log': ['timeout', 25157750],
    'pico_2x2_addi_pass_mask1111.sim.excerpt.log': ['pass', 5179750],
    'calib_pico_2x2_amoadd_w_mask1111_badtrap.log': ['fail', null],
    'calib_pico_1x1_l15_ways_2_8.log': ['timeout', null],
    'calib_pico_2x2_memwalk16k_cache_variants.log': ['timeout', 71608750],
    'calib_pico_1x1_invalid_geometries.log': ['pass', 3279750],
    'calib_ariane_1x1_l1d_8way_wayrule.log': ['pass', null],
    'pico_run_errors_nodiag_nomodel.log': [null, null],
  };
  for (const [name, [verdict, time]] of Object.entries(verdicts))
    it(`reads ${name} as ${verdict ?? 'no verdict'}`, () => {
      const text = real(name);
      assert.equal(simVerdict(text), verdict);
      assert.equal(simTime(text), time);
    });

  it('reads the status logs', () => {
    const status: Record<string, string> = {
      'pico_1x1_addi_pass.status.log': 'PASS',
      'pico_1x1_addi_badtrap.status.log': 'FAIL (HIT BAD TRAP)',
      'pico_1x1_addi_maxcycles.status.log': 'MaxCycles Hit',
      'pico_1x1_nobist_addi_timeout.status.log': 'Timeout (TIMEOUT)',
      'pico_2x2_addi_pass_mask1111.status.log': 'PASS',
      'ariane_1x1_rv64ui-p-addi_pass.status.log': 'PASS',
    };
    for (const [name, word] of Object.entries(status)) assert.equal(statusDiag(real(name))?.status, word, name);
    assert.equal(statusDiag(real('pico_1x1_addi_pass.status.log'))?.name, 'pico_1x1_addi');
    assert.equal(numTiles(real('pico_2x2_addi_pass_mask1111.status.log')), 0);
    assert.equal(cycles(real('pico_2x2_addi_pass_mask1111.status.log')), null);
    assert.equal(maxCycles(real('pico_1x1_addi_maxcycles.status.log')), 6000);
  });

  it('tags the failed builds and quotes their error lines', () => {
    const fpga = real('pico_1x1_build_fail_fpgasynth_pinnotfound.excerpt.log');
    assert.equal(buildFailureReason(fpga), 'verilog_error');
    assert.deepEqual(buildErrors(fpga), [
      "%Error-PINNOTFOUND: $PITON_ROOT/piton/verif/env/manycore/manycore_top.tmp.v:361:6: Pin not found: 'async_mux'",
    ]);
    assert.equal(isTestbenchPortMismatch(fpga), true);
    assert.equal(simsDie(fpga), 'failed building model');

    assert.equal(buildFailureReason(real('pico_1x1_build_fail_needtiming.excerpt.log')), 'verilator_needs_timing_flag');

    const xbar = buildOutputFacts(real('pico_1x2_xbar_build_fail_duplicate_pin.excerpt.log'));
    assert.equal(xbar.failureReason, 'verilog_error');
    assert.equal(xbar.errorCount, 18);
    assert.ok(xbar.errors.every((line) => line.includes('Duplicate pin connection')));
    assert.equal(xbar.pinNotFound, false);
  });

  it('finds no failure in the successful builds', () => {
    for (const name of [
      'pico_1x1_build_ok.excerpt.log',
      'ariane_1x1_build_ok.excerpt.log',
      'sparc_1x1_build_ok.excerpt.log',
    ]) {
      const facts = buildOutputFacts(real(name));
      assert.equal(facts.failureReason, '', name);
      assert.deepEqual(facts.errors, [], name);
    }
    assert.equal(modelDir(real('pico_1x1_build_ok.excerpt.log')), '$PITON_ROOT/build/manycore/pico_1x1');
  });

  it('reads why sims died on a missing diag and a missing model', () => {
    const text = real('pico_run_errors_nodiag_nomodel.log');
    assert.equal(simsDie(text), 'no diag with name no_such_diag.S found');
    assert.equal(buildFailureReason(text), 'sims_die:no diag with name no_such_diag.S found');
    assert.equal(statusDiag(text)?.status, 'Unknown');
  });

  it('reads the regression summary', () => {
    const summary = regressSummary(real('pico_tile1_group_regreport_summary.log'));
    assert.equal(summary.passed, true);
    assert.equal(summary.diagCount, 53);
    assert.equal(summary.counts.PASS, 53);
    assert.equal(summary.counts['MaxCycles Hit'], 0);
    assert.equal(Object.keys(summary.counts).length, 14);
  });
});
