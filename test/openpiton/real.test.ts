/**
 * Against a real OpenPiton checkout named by PITON_ROOT (skipped without one): the checkout passes
 * doctor's layout checks, its diaglist parses as the original's tests pin, and a PicoRV32 1x1 model
 * with CONFIG_DISABLE_BIST_CLEAR builds (or is reused), passes addi.S and the project's PicoRV32
 * workloads under a full finish mask, while PITON_FPGA_SYNTH and a two-row crossbar fail the build
 * with the errors Verilator prints. A first build takes minutes; later runs reuse the model.
 * PicoRV32 under Verilator 5 also needs fixes 6 and 7 in the checkout (see `mace doctor`).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { makeConfig } from '../../mace/openpiton/config.ts';
import { checkCheckout } from '../../mace/openpiton/doctor.ts';
import { diaglistGroup } from '../../mace/openpiton/parse.ts';
import { Workspace } from '../../mace/openpiton/workspace.ts';
import { ROOT } from '../helpers.ts';
import { testEnv } from './fake-checkout.ts';

const PITON_ROOT = process.env.PITON_ROOT;
const skip = PITON_ROOT ? false : 'PITON_ROOT is not set: no real OpenPiton checkout to test against';
if (!PITON_ROOT) console.log(`# skipped real OpenPiton tests: ${skip}`);

const pico = (extra: string[] = [], more: Parameters<typeof makeConfig>[0] = {}) =>
  makeConfig({ core: 'pico', config_rtl: ['MINIMAL_MONITORING', 'CONFIG_DISABLE_BIST_CLEAR', ...extra], ...more });

describe('a real OpenPiton checkout', { skip }, () => {
  const root = PITON_ROOT!;
  const workspace = new Workspace(root, { env: testEnv() });

  it('has the layout, sims and Verilator the adapter needs', async () => {
    const report = await checkCheckout(root, { env: testEnv() });
    for (const name of ['layout', 'prologue', 'sims', 'verilator'])
      assert.equal(report.checks.find((c) => c.name === name)?.ok, true, name);
  });

  it('parses its master diaglist as the original tests pin', () => {
    const text = readFileSync(join(root, 'piton/verif/diag/master_diaglist_princeton'), 'utf8');
    const mini = diaglistGroup(text, 'tile1_mini');
    assert.equal(mini.length, 46);
    const by = (alias: string) => mini.find((e) => e.alias === alias);
    assert.deepEqual(by('imiss_sameset'), {
      alias: 'imiss_sameset',
      source: 'Imiss_sameset.s',
      args: ['-max_cycle=50000'],
    });
    assert.deepEqual(by('tr_tcc')?.args, ['-max_cycle=500000', '-midas_args=-DBUG6262']);
    assert.deepEqual(by('lsu_mbar')?.args, ['-max_cycle=1500000', '-midas_args=-allow_tsb_conflicts']);
    assert.deepEqual(by('ssi_ldst')?.args, ['-max_cycle=3000000', '-rtl_timeout=50000', '-nofast_boot']);
    assert.equal(by('fail_perf_chase_l1hit'), undefined);
  });

  it('builds PicoRV32 1x1, reuses it, and passes addi.S and the project workloads', async () => {
    const config = pico();
    const built = await workspace.build(config);
    assert.equal(built.success, true, `${built.failureReason}\n${built.errors.join('\n')}`);
    assert.equal((await workspace.build(config)).reused, true);
    const addi = await workspace.run(config, 'addi.S');
    assert.equal(addi.verdict, 'pass', addi.simLogTail.slice(-500));
    assert.equal(addi.simTime, 3279750);
    for (const program of ['barrier_atomic_rv32.S', 'producer_consumer_rv32.S', 'scatter_gather_rv32.S']) {
      const run = await workspace.run(config, program, { asmDiagRoot: join(ROOT, 'workloads'), rtlTimeout: 1_000_000 });
      assert.equal(run.success, true, `${program}: ${run.verdict}\n${run.simLogTail.slice(-500)}`);
    }
  });

  it('fails PITON_FPGA_SYNTH with a testbench pin that is not found', async () => {
    const result = await workspace.build(pico(['PITON_FPGA_SYNTH']));
    assert.equal(result.success, false);
    assert.equal(result.failureReason, 'verilog_error');
    assert.match(
      result.errors[0] ?? '',
      /^%Error-PINNOTFOUND: .*manycore_top\.tmp\.v:\d+:\d+: Pin not found: 'async_mux'$/,
    );
  });

  it('fails a crossbar of two rows with duplicate pin connections', async () => {
    const result = await workspace.build(pico([], { x_tiles: 1, y_tiles: 2, network_config: 'xbar_config' }));
    assert.equal(result.success, false);
    assert.equal(result.failureReason, 'verilog_error');
    assert.ok(
      result.errors.length > 0 && result.errors.every((line) => line.includes('Duplicate pin connection')),
      result.errors.join('\n'),
    );
  });
});
