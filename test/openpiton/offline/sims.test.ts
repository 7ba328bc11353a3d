/**
 * The offline checkout's sims as the adapter drives it (bash -lc, PITON_ROOT, piton_settings.bash):
 * its output, files and exit codes in OpenPiton's formats, for the rules the model follows.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { buildId, simsFlags } from '../../../mace/openpiton/config.ts';
import { tempDir } from '../../helpers.ts';
import { build, config, offlineCheckout, pico, run, sims, verdictLine } from './helpers.ts';

const dir = tempDir('mace-offline-');
let root = '';
before(async () => {
  root = await offlineCheckout({}, dir);
});

describe('offline sims: builds', () => {
  it('builds a PicoRV32 1x1 into build/manycore/<id>/obj_dir/Vcmp_top, printing like sims', () => {
    const c = pico(1, 1);
    const result = build(root, c);
    assert.equal(result.code, 0, result.stdout);
    assert.ok(existsSync(join(root, 'build/manycore', buildId(c), 'obj_dir/Vcmp_top')));
    assert.match(result.stdout, /^sims: creating model directory .*\/build\/manycore\/mace_[0-9a-f]{12}$/m);
    assert.match(result.stdout, /^sims: Building rtl model$/m);
    assert.match(result.stdout, /^sims: mace offline model [0-9a-f]{12}: a calibrated model of OpenPiton/m);
    assert.equal(result.stdout.match(/^%Warning-/gm)?.length, 671);
    assert.match(result.stdout, /^sims: stop_time \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d UTC \d{4}$/m);
  });

  it('fails PITON_FPGA_SYNTH with PINNOTFOUND on async_mux and dies at line 1572', () => {
    const result = build(
      root,
      pico(1, 1, { config_rtl: ['MINIMAL_MONITORING', 'CONFIG_DISABLE_BIST_CLEAR', 'PITON_FPGA_SYNTH'] }),
    );
    assert.equal(result.code, 1);
    assert.match(
      result.stdout,
      /^%Error-PINNOTFOUND: .*\/piton\/verif\/env\/manycore\/manycore_top\.tmp\.v:361:6: Pin not found: 'async_mux'$/m,
    );
    assert.match(result.stdout, /^%Error: Exiting due to 1 error\(s\)$/m);
    assert.match(result.stdout, /^sims: Caught a SIGDIE\. failed building model at .*\/sims,2\.0 line 1572\.$/m);
  });

  it('fails the crossbar on two rows with duplicate pin connections, and builds it on one row', () => {
    const twoRows = build(root, pico(1, 2, { network_config: 'xbar_config' }));
    assert.equal(twoRows.code, 1);
    assert.equal(twoRows.stdout.match(/Duplicate pin connection/g)?.length, 18);
    assert.match(twoRows.stdout, /^%Error: .*chip\.tmp\.v:932:6: Duplicate pin connection: 'dataIn_0'$/m);
    assert.match(twoRows.stdout, /^%Error: Exiting due to 18 error\(s\)$/m);
    assert.equal(build(root, pico(2, 1, { network_config: 'xbar_config' })).code, 0);
  });

  it('needs --timing or --no-timing (Verilator 5) and rejects options Verilator 5.006 lacks', () => {
    const noTiming = build(root, pico(1, 1), []);
    assert.equal(noTiming.code, 1);
    assert.match(noTiming.stdout, /^%Error-NEEDTIMINGOPT: .*pc_cmp\.tmp\.v:664:5: Use --timing or --no-timing/m);
    const badOption = build(root, pico(1, 1), ['--no-timing', '--no-pch']);
    assert.equal(badOption.code, 1);
    assert.match(badOption.stdout, /^%Error: Invalid option: --no-pch$/m);
  });

  it('dies on a flag sims does not know, writing status.log as its die handler does', () => {
    const result = sims(root, join(root, 'build'), ['-sys=manycore', '-pico', '-no_such_flag=1', '-vlt_build'], 'pico');
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^sims: Caught a SIGDIE\. Unprocessed argument: -no_such_flag=1 at .* line 2667\.$/m);
    assert.match(readFileSync(join(root, 'build/status.log'), 'utf8'), /^Diag: build {35} {3}Unknown$/m);
  });

  it('reports the calibrated Verilator, marked as the model', () => {
    const result = sims(root, root, ['-version'], 'pico');
    assert.equal(result.stdout, 'sims version: 2.0\n');
    const version = sims(root, root, [], 'pico');
    assert.equal(version.code, 1);
  });
});

describe('offline sims: what the adapter refuses but OpenPiton builds', () => {
  it('ignores an L1.5 size of 0 (the model built is the default one)', () => {
    const c = pico(1, 1);
    const flags = simsFlags(c).map((f) => (f === '-config_l15_size=8192' ? '-config_l15_size=0' : f));
    const id = ['-build_id=l15zero'];
    assert.equal(
      sims(root, join(root, 'build'), [...flags, ...id, '-vlt_build', '-vlt_build_args=--no-timing'], 'pico').code,
      0,
    );
    const cwd = join(root, 'build/manycore/l15zero/runs/addi');
    const result = sims(root, cwd, [...flags, ...id, '-vlt_run', 'addi.S'], 'pico');
    assert.equal(
      verdictLine(readFileSync(join(cwd, 'sim.log'), 'utf8')),
      '3279750: Simulation -> PASS (HIT GOOD TRAP)',
      result.stdout,
    );
  });

  it("builds and passes Ariane with more L1D ways than the L1.5 (Verilator compiles the rule's assertion out)", () => {
    const c = config({ core: 'ariane', caches: { l1d: [8192, 8] } });
    const built = build(root, c);
    assert.equal(built.code, 0);
    assert.match(built.stdout, /^%Warning-WIDTH: .*wt_l15_adapter\.sv:124:45: /m);
    const result = run(root, c, 'rv64ui-p-add.S', ['-precompiled']);
    assert.equal(verdictLine(result.file('sim.log')), '18562250: Simulation -> PASS (HIT GOOD TRAP)');
  });
});

describe('offline sims: runs', () => {
  const c11 = () => pico(1, 1);
  const c22 = () => pico(2, 2);

  it('passes addi.S on 1x1 with the real time and leaves the run files in their formats', () => {
    assert.equal(build(root, c11()).code, 0);
    const result = run(root, c11(), 'addi.S', ['-finish_mask=1', '-rtl_timeout=1000000']);
    assert.equal(result.code, 0, result.stdout);
    const simLog = result.file('sim.log');
    assert.equal(verdictLine(simLog), '3279750: Simulation -> PASS (HIT GOOD TRAP)');
    assert.match(simLog, /^rtl_timeout = {5}1000000$/m);
    assert.match(simLog, /^wait cycles = {10}10$/m);
    assert.match(simLog, /^ {17}250: good_trap 0040000378$/m);
    assert.match(simLog, /^Info: spc\(0\) thread\(0\) Hit Good trap$/m);
    assert.match(simLog, /^Current PC: 0x40000000, Next PC: 0x40000000$/m);
    const status = result.file('status.log').split('\n');
    assert.match(status[0]!, /^Diag: addi\.S-\S+ +PASS$/);
    assert.equal(status[0]!.indexOf('PASS'), 49);
    assert.equal(status[2], 'sim.log: 3279750: Simulation -> PASS (HIT GOOD TRAP)');
    assert.equal(status[3], 'NumTiles=         0');
    assert.equal(result.file('symbol.tbl'), 'good_trap 40000378 X 40000378\nbad_trap 40000348 X 40000348\n');
    assert.equal(result.file('perf.log'), '');
    assert.equal(result.file('fake_uart.log'), '');
    assert.equal(readFileSync(join(result.cwd, 'diag.exe')).subarray(0, 4).toString('latin1'), '\x7fELF');
    assert.match(result.stdout, /^sims: Found diag under .*\/piton\/verif\/diag\/assembly\/riscv\/pico\/addi\.S$/m);
  });

  it('runs PicoRV32 ISA tests on every tile of a 2x2 with a full mask, and fails atomics on shared data', () => {
    assert.equal(build(root, c22()).code, 0);
    const expected: Record<string, string> = {
      'addi.S': '5179750: Simulation -> PASS (HIT GOOD TRAP)',
      'sw.S': '9509750: Simulation -> PASS (HIT GOOD TRAP)',
      'amoadd_w.S': '3929250 : Simulation -> FAIL(HIT BAD TRAP)',
    };
    for (const [test, line] of Object.entries(expected)) {
      const result = run(root, c22(), test, ['-finish_mask=1111']);
      assert.equal(verdictLine(result.file('sim.log')), line, test);
    }
    const amo = run(root, c22(), 'amoadd_w.S', ['-finish_mask=1111']);
    assert.match(amo.file('sim.log'), /^3929250: Info - > Hit Bad trap\. spc\(2\) thread\(0\)$/m);
    assert.match(amo.file('status.log'), /^Diag: \S+ +FAIL \(HIT BAD TRAP\)$/m);
    const tileZero = run(root, c22(), 'addi.S');
    assert.equal(verdictLine(tileZero.file('sim.log')), '5162250: Simulation -> PASS (HIT GOOD TRAP)');
  });

  it('times out PicoRV32 without CONFIG_DISABLE_BIST_CLEAR at the monitor timeout', () => {
    const c = pico(1, 1, { config_rtl: ['MINIMAL_MONITORING'] });
    assert.equal(build(root, c).code, 0);
    const result = run(root, c, 'addi.S');
    const simLog = result.file('sim.log');
    assert.equal(verdictLine(simLog), '25157750 : Simulation -> FAIL(TIMEOUT)');
    assert.match(simLog, /^Info: spc\(0\) thread\(1\) -> timeout happen$/m);
    assert.equal(simLog.match(/^Current PC/gm)?.length, 1);
    assert.match(result.file('status.log'), /^Diag: \S+ +Timeout \(TIMEOUT\)$/m);
  });

  it('stops at max cycles with the real line and status', () => {
    const result = run(root, c11(), 'addi.S', ['-max_cycle=6000']);
    assert.equal(
      verdictLine(result.file('sim.log')),
      '3000250 : Simulation -> (terminated by reaching max cycles = 6000)',
    );
    assert.match(result.file('sim.log'), /^max cycles = {8}6000$/m);
    assert.match(result.file('status.log'), /^Diag: \S+ +MaxCycles Hit\n.*\nsim\.log: max cycles = {8}6000\n/m);
  });

  it('dies on a diag it cannot find and on a model that was never built', () => {
    const noDiag = run(root, c11(), 'no_such_diag.S');
    assert.equal(noDiag.code, 1);
    assert.match(noDiag.stdout, /^sims: Caught a SIGDIE\. no diag with name no_such_diag\.S found at .* line 2457\.$/m);
    assert.match(noDiag.file('status.log'), /^Diag: \S+ +Unknown$/m);
    const noModel = run(root, pico(3, 1), 'addi.S');
    assert.equal(noModel.code, 1);
    assert.match(noModel.stdout, /^cp: cannot stat '.*\/flist': No such file or directory$/m);
    assert.match(noModel.stdout, /^sims: Caught a SIGDIE\. could not copy flist to .* line 1609\.$/m);
  });

  it('finds the project workloads through -asm_diag_root', () => {
    const workloads = join(root, '..', 'workloads');
    writeFileSync(join(sims(root, workloads, ['-version'], 'pico').cwd, 'barrier_atomic_rv32.S'), '# a gate program\n');
    const result = run(root, c22(), 'barrier_atomic_rv32.S', [`-asm_diag_root=${workloads}`, '-finish_mask=1111']);
    assert.match(result.stdout, new RegExp(`^sims: Looking for diag under ${workloads}$`, 'm'));
    assert.match(verdictLine(result.file('sim.log'))!, /PASS/);
  });
});

describe('offline sims: coverage', () => {
  it('leaves coverage.dat from a --coverage-line build, which verilator_coverage totals as the real tool prints', () => {
    const c = pico(1, 1, { extra_flags: ['-vlt_build_args=--coverage-line'] });
    assert.equal(build(root, c).code, 0);
    const result = run(root, c, 'addi.S');
    const annotated = join(result.cwd, 'coverage_annotated');
    const report = spawnSync(
      'bash',
      [
        '-c',
        `export PITON_ROOT=${root} && source "$PITON_ROOT/piton/piton_settings.bash" && cd ${result.cwd} && verilator_coverage --annotate ${annotated} coverage.dat`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(report.status, 0, report.stderr);
    assert.match(
      report.stdout,
      /^Total coverage \((\d+)\/14000\) \d+\.00%\nSee lines with '%00' in .*coverage_annotated\n$/,
    );
  });
});

describe('offline sims: other cores', () => {
  const ariane = (x: number, y: number) => config({ core: 'ariane', x_tiles: x, y_tiles: y });

  it('passes Ariane riscv-tests on 1x1, and on a mesh only under a one-tile mask', () => {
    assert.equal(build(root, ariane(1, 1)).code, 0);
    const single = run(root, ariane(1, 1), 'rv64ui-p-addi.S', ['-precompiled', '-finish_mask=1']);
    assert.equal(verdictLine(single.file('sim.log')), '17863750: Simulation -> PASS (HIT GOOD TRAP)');
    assert.match(single.stdout, /^sims: Looking for diag under .*\/ariane\/\/tmp\/riscv-tests\/build\/isa$/m);
    assert.equal(build(root, ariane(2, 2)).code, 0);
    const full = run(root, ariane(2, 2), 'rv64ui-p-addi.S', ['-precompiled', '-finish_mask=1111']);
    assert.equal(verdictLine(full.file('sim.log')), '25157750 : Simulation -> FAIL(TIMEOUT)');
    const one = run(root, ariane(2, 2), 'rv64ui-p-addi.S', ['-precompiled', '-finish_mask=0001']);
    assert.match(verdictLine(one.file('sim.log'))!, /PASS/);
  });

  it('ends OpenSPARC T1 at max cycles (Verilator 5.006)', () => {
    const t1 = config({ core: 'sparc' });
    assert.equal(build(root, t1).code, 0);
    const result = run(root, t1, 'princeton-test-test.s');
    assert.equal(
      verdictLine(result.file('sim.log')),
      '750000250 : Simulation -> (terminated by reaching max cycles = 1500000)',
    );
  });
});
