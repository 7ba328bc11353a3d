/**
 * Every rule of the offline model, through the adapter: a Workspace on an offline checkout builds
 * and runs exactly as it would on a real one (bash -lc, the prologue, sims), and the parsed artifacts
 * (success, failure reason, error lines, verdict, simulated time, status) say what the real runs said.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { RunOptions } from '../../../mace/openpiton/artifacts.ts';
import { makeConfig, type PitonConfig, type PitonConfigInput } from '../../../mace/openpiton/config.ts';
import { CALIBRATION_DIAGS } from '../../../mace/openpiton/offline/calibration/table.ts';
import { initOfflineCheckout, type OfflineCheckoutOptions } from '../../../mace/openpiton/offline/checkout.ts';
import { PICORV32 } from '../../../mace/openpiton/offline/model/rtl.ts';
import { Workspace } from '../../../mace/openpiton/workspace.ts';
import { ROOT, tempDir } from '../../helpers.ts';
import { testEnv } from '../fake-checkout.ts';

const WORKLOADS = join(ROOT, 'workloads');
const BIST = ['MINIMAL_MONITORING', 'CONFIG_DISABLE_BIST_CLEAR'];
const pico = (x: number, y: number, extra: Partial<PitonConfigInput> = {}): PitonConfig =>
  makeConfig({ core: 'pico', x_tiles: x, y_tiles: y, config_rtl: BIST, ...extra });
const ariane = (x: number, y: number, extra: Partial<PitonConfigInput> = {}): PitonConfig =>
  makeConfig({ core: 'ariane', x_tiles: x, y_tiles: y, ...extra });
const mask = (c: PitonConfig) => '1'.repeat(c.x_tiles * c.y_tiles);

async function offlineWorkspace(options: OfflineCheckoutOptions = {}, env: Record<string, string> = {}) {
  const { root } = await initOfflineCheckout(join(tempDir('mace-offline-adapter-'), 'openpiton'), {
    speed: 0,
    ...options,
  });
  return new Workspace(root, { env: testEnv(env) });
}

/** Build (or reuse) and run, asserting the build succeeded. */
async function buildAndRun(ws: Workspace, c: PitonConfig, test: string, options: RunOptions = {}) {
  const built = await ws.build(c);
  assert.equal(built.success, true, `${test}: ${built.failureReason} ${built.errors.join(' | ')}`);
  return ws.run(c, test, { finishMask: mask(c), ...options });
}

describe('offline checkout through the adapter', async () => {
  const ws = await offlineWorkspace();

  it('builds PicoRV32, reports the model as its Verilator, reuses the model, and passes addi.S', async () => {
    const c = pico(1, 1);
    const built = await ws.build(c);
    assert.equal(built.success, true);
    assert.equal(built.failureReason, '');
    assert.match(built.binaryPath, /\/build\/manycore\/mace_[0-9a-f]{12}\/obj_dir\/Vcmp_top$/);
    assert.match(built.verilatorVersion, /^Verilator 5\.006 .*mace offline model of OpenPiton/);
    assert.ok(built.command.includes('-vlt_build_args=--no-timing'));
    const again = await ws.build(c);
    assert.equal(again.reused, true);
    const run = await ws.run(c, 'addi.S');
    assert.equal(run.success, true);
    assert.equal(run.verdict, 'pass');
    assert.equal(run.simTime, 3_279_750);
    assert.equal(run.statusDiag?.status, 'PASS');
  });

  it('times PicoRV32 out without CONFIG_DISABLE_BIST_CLEAR', async () => {
    const run = await buildAndRun(ws, pico(1, 1, { config_rtl: ['MINIMAL_MONITORING'] }), 'addi.S');
    assert.equal(run.success, false);
    assert.equal(run.verdict, 'timeout');
    assert.equal(run.simTime, 25_157_750);
    assert.equal(run.statusDiag?.status, 'Timeout (TIMEOUT)');
  });

  it('fails the build on PITON_FPGA_SYNTH and on a two-row crossbar, with the real error lines', async () => {
    const fpga = await ws.build(pico(1, 1, { config_rtl: [...BIST, 'PITON_FPGA_SYNTH'] }));
    assert.equal(fpga.success, false);
    assert.equal(fpga.failureReason, 'verilog_error');
    assert.deepEqual(fpga.errors, [
      `%Error-PINNOTFOUND: ${ws.root}/piton/verif/env/manycore/manycore_top.tmp.v:361:6: Pin not found: 'async_mux'`,
    ]);
    const xbar = await ws.build(pico(1, 2, { network_config: 'xbar_config' }));
    assert.equal(xbar.failureReason, 'verilog_error');
    assert.equal(xbar.errors.length, 18);
    assert.equal(
      xbar.errors[0],
      `%Error: ${ws.root}/piton/design/chip/rtl/chip.tmp.v:932:6: Duplicate pin connection: 'dataIn_0'`,
    );
  });

  it('ignores unknown defines and does not validate cache geometry', async () => {
    for (const c of [
      pico(1, 1, { config_rtl: [...BIST, 'FOO_BAR_UNKNOWN'] }),
      pico(1, 1, { caches: { l1d: [12288, 4] } }),
      pico(1, 1, { caches: { l1d: [8192, 3] } }),
    ]) {
      const run = await buildAndRun(ws, c, 'addi.S');
      assert.equal(run.verdict, 'pass');
      assert.equal(run.simTime, 3_279_750, JSON.stringify(c.caches));
    }
  });

  it('moves PicoRV32 times with the L1.5 and L2, not the L1D', async () => {
    const walk = { asmDiagRoot: CALIBRATION_DIAGS, rtlTimeout: 1_000_000 };
    const times = async (c: PitonConfig, test: string, options: RunOptions = {}) =>
      (await buildAndRun(ws, c, test, options)).simTime;
    assert.equal(await times(pico(2, 2, { caches: { l2: [32768, 4] } }), 'addi.S'), 5_117_750);
    assert.equal(await times(pico(2, 2, { caches: { l1d: [2048, 2] } }), 'addi.S'), 5_179_750);
    assert.equal(await times(pico(2, 2, { caches: { l15: [16384, 4] } }), 'memwalk16k.S', walk), 59_732_750);
    const twoWay = await buildAndRun(ws, pico(1, 1, { caches: { l15: [8192, 2] } }), 'memwalk16k.S', walk);
    assert.equal(twoWay.verdict, 'timeout');
    assert.equal(twoWay.simTime, 500_157_750);
  });

  it('runs ISA tests on every tile of a mesh and fails atomics on shared data there only', async () => {
    const c22 = pico(2, 2);
    const addi = await buildAndRun(ws, c22, 'addi.S');
    assert.equal(addi.simTime, 5_179_750);
    assert.match(addi.simLogTail, /Info: spc\(3\) thread\(0\) Hit Good trap/);
    const amo = await buildAndRun(ws, c22, 'amoadd_w.S');
    assert.equal(amo.verdict, 'fail');
    assert.equal(amo.simTime, 3_929_250);
    assert.equal(amo.statusDiag?.status, 'FAIL (HIT BAD TRAP)');
    assert.equal((await buildAndRun(ws, pico(1, 1), 'amoadd_w.S')).verdict, 'pass');
  });

  it('passes Ariane riscv-tests on 1x1 and on a mesh only under a one-tile mask', async () => {
    const one = await buildAndRun(ws, ariane(1, 1), 'rv64ui-p-addi.S', { precompiled: true });
    assert.equal(one.simTime, 17_863_750);
    const full = await buildAndRun(ws, ariane(2, 2), 'rv64ui-p-addi.S', { precompiled: true });
    assert.equal(full.verdict, 'timeout');
    const tileZero = await buildAndRun(ws, ariane(2, 2), 'rv64ui-p-addi.S', { precompiled: true, finishMask: '1' });
    assert.equal(tileZero.verdict, 'pass');
  });

  it('refuses the Ariane way rule before any build', async () => {
    const refused = await ws.build(ariane(1, 1, { caches: { l1d: [8192, 8] } }));
    assert.equal(refused.failureReason, 'way_rule');
    assert.equal(refused.returncode, -1);
  });

  it('passes the project gate programs on any mesh with a full mask', async () => {
    for (const c of [pico(1, 1), pico(2, 2), pico(4, 2)])
      for (const test of ['barrier_atomic_rv32.S', 'producer_consumer_rv32.S', 'scatter_gather_rv32.S']) {
        const run = await buildAndRun(ws, c, test, { asmDiagRoot: WORKLOADS, rtlTimeout: 1_000_000 });
        assert.equal(run.verdict, 'pass', `${test} on ${c.x_tiles}x${c.y_tiles}`);
      }
    const run = await buildAndRun(ws, ariane(2, 2), 'barrier_atomic_rv64.S', {
      asmDiagRoot: WORKLOADS,
      rtlTimeout: 1_000_000,
    });
    assert.equal(run.verdict, 'pass');
  });

  it('ends OpenSPARC T1 at max cycles', async () => {
    const run = await buildAndRun(ws, makeConfig({ core: 'sparc' }), 'princeton-test-test.s');
    assert.equal(run.verdict, 'maxcycles');
    assert.equal(run.simTime, 750_000_250);
    assert.equal(run.statusDiag?.status, 'MaxCycles Hit');
  });

  it('reports a diag sims cannot find as a failed run without a verdict', async () => {
    const run = await buildAndRun(ws, pico(1, 1), 'no_such_diag.S');
    assert.equal(run.returncode, 1);
    assert.equal(run.verdict, null);
    assert.equal(run.statusDiag?.status, 'Unknown');
  });
});

describe('offline finish mask register', async () => {
  const ws = await offlineWorkspace();

  it('cannot complete a 16-tile mask in the 32-bit register, and can once the checkout widens it', async () => {
    const c = pico(4, 4);
    const stuck = await buildAndRun(ws, c, 'addi.S', { rtlTimeout: 200_000 });
    assert.equal(stuck.verdict, 'timeout');
    const simLog = readFileSync(join(stuck.runDir, 'sim.log'), 'utf8');
    assert.equal((simLog.match(/Hit Good trap/g) ?? []).length, 16, 'every tile hit its good trap');
    const pcCmp = join(ws.root, 'piton/verif/env/manycore/pc_cmp.v.pyv');
    writeFileSync(pcCmp, readFileSync(pcCmp, 'utf8').replace('integer      finish_mask;', 'reg [63:0]   finish_mask;'));
    const widened = await buildAndRun(ws, c, 'addi.S', { rtlTimeout: 200_000 });
    assert.equal(widened.verdict, 'pass');
  });
});

describe('offline source faults and RTL edits', async () => {
  const ws = await offlineWorkspace();
  const picorv32 = 'piton/design/chip/tile/pico/rtl/picorv32.v';

  it('breaks the build on a planted fault, naming the file and line, until the line is restored', async () => {
    const c = pico(2, 2);
    await ws.writeFile(picorv32, PICORV32.replace('(mem_valid && mem_ready) ||', '(mem_valid && mem_readyx) ||'));
    const broken = await ws.build(c);
    assert.equal(broken.failureReason, 'verilog_error');
    assert.match(broken.errors[0]!, /picorv32\.v:\d+:\d+: Can't find definition of variable: 'mem_readyx'$/);
    await ws.writeFile(picorv32, PICORV32);
    assert.equal((await buildAndRun(ws, c, 'addi.S')).verdict, 'pass');
  });

  it("names Ariane's member fault on line 255", async () => {
    const path = 'piton/design/chip/tile/ariane/core/cache_subsystem/wt_l15_adapter.sv';
    const original = await ws.readFile(path);
    await ws.writeFile(path, original.replace('l15_inval_icache_inval;', 'l15_inval_icache_invalid;'));
    const broken = await ws.build(ariane(1, 1));
    assert.match(
      broken.errors[0]!,
      /wt_l15_adapter\.sv:255:\d+: Member 'l15_inval_icache_invalid' not found in structure$/,
    );
    await ws.writeFile(path, original);
  });

  it('takes the bad trap when a change compiles but breaks the adder, and passes an edit that keeps the design', async () => {
    const c = pico(1, 1);
    const adder = 'alu_add_sub = instr_sub ? reg_op1 - reg_op2 : reg_op1 + reg_op2;';
    await ws.writeFile(picorv32, PICORV32.replace(adder, adder.replace('reg_op1 - reg_op2', 'reg_op1 + reg_op2')));
    assert.equal((await buildAndRun(ws, c, 'addi.S')).verdict, 'fail');
    await ws.writeFile(
      picorv32,
      PICORV32.replace('assign pcpi_rs1 = reg_op1;', 'assign pcpi_rs1 = reg_op1x;').replace(
        '    wire       mem_xfer;',
        '    wire       mem_xfer;\n    wire [31:0] reg_op1x;  // added by an RTL edit',
      ),
    );
    const edited = await buildAndRun(ws, c, 'addi.S');
    assert.equal(edited.verdict, 'pass');
    await ws.writeFile(picorv32, PICORV32);
  });
});

describe('offline Generic Tile core', async () => {
  const ws = await offlineWorkspace();
  const generic = makeConfig({ core: 'sparc', extra_flags: ['-generic_core=ibex'] });
  const dir = 'piton/design/chip/tile/generic/ibex';
  const skeleton = [
    'module ibex_wrapper (input clk, input rst_n);',
    '    // Instantiate the core here and connect it to the transducer.',
    '    // ibex_core u_core (.clk_i(clk), .rst_ni(rst_n));',
    'endmodule',
    '',
  ].join('\n');

  it('runs nothing while the wrapper is the skeleton, and passes once it instantiates the core', async () => {
    await ws.writeFile(
      `${dir}/rtl/ibex_core.sv`,
      'module ibex_core (input logic clk_i, input logic rst_ni);\nendmodule\n',
    );
    await ws.writeFile(`${dir}/ibex_wrapper.v`, skeleton);
    const idle = await buildAndRun(ws, generic, 'addi.S');
    assert.equal(idle.verdict, 'timeout');
    await ws.writeFile(`${dir}/ibex_wrapper.v`, skeleton.replace('    // ibex_core u_core', '    ibex_core u_core'));
    const running = await buildAndRun(ws, generic, 'addi.S');
    assert.equal(running.verdict, 'pass');
  });

  it('fails the build when the wrapper instantiates a module nobody defines', async () => {
    await ws.writeFile(`${dir}/ibex_wrapper.v`, skeleton.replace('    // ibex_core u_core', '    ibex_top u_core'));
    const built = await ws.build(generic);
    assert.equal(built.failureReason, 'verilog_error');
    assert.match(built.errors[0]!, /ibex_wrapper\.v:3:5: Cannot find file containing module: 'ibex_top'$/);
  });
});

describe('offline flakes and pacing', () => {
  it('fails builds and runs for no configuration reason at the seeded rate', async () => {
    const ws = await offlineWorkspace({ flakeRate: 1 });
    const built = await ws.build(pico(1, 1));
    assert.equal(built.success, false);
    assert.equal(built.failureReason, 'make_failed');
    const steady = new Workspace(ws.root, { env: testEnv({ MACE_OFFLINE_FLAKE_RATE: '0' }) });
    assert.equal((await steady.build(pico(1, 1))).success, true);
    const run = await ws.run(pico(1, 1), 'addi.S');
    assert.equal(run.success, false);
    assert.equal(run.verdict, null);
    assert.equal(run.returncode, 1);
  });

  it('replays durations at the speed factor, and a killed run keeps what it had written', async () => {
    const ws = await offlineWorkspace({ speed: 0.02 });
    const c = pico(1, 1);
    const built = await ws.build(c);
    assert.ok(built.wallTimeS > 0.6, `a 45 s build at speed 0.02 took ${built.wallTimeS} s`);
    // A mask naming a tile the 1x1 does not have never completes: 100M cycles, ~1100 s real, 22 s here.
    const killed = await ws.run(c, 'addi.S', {
      rtlTimeout: 100_000_000,
      maxCycle: 100_000_000,
      finishMask: '11',
      timeoutS: 4,
    });
    assert.equal(killed.returncode, -1);
    assert.equal(killed.verdict, 'timeout');
    assert.match(readFileSync(join(killed.runDir, 'sim.log'), 'utf8'), /^rtl_timeout = {3}100000000$/m);
  });
});
