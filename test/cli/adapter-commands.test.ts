/** `mace inspect log`, `mace inspect config` and `mace doctor`. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { picoMonitorFix, picoResetFix } from '../../mace/openpiton/doctor.ts';
import { ROOT, runCli, tempDir } from '../helpers.ts';
import { fakeCheckout, testEnv } from '../openpiton/fake-checkout.ts';

const REAL_LOGS = process.env.OPENPITON_LOGS ?? resolve(ROOT, '../shared/openpiton-logs');
const FIXTURES = join(ROOT, 'test/fixtures/openpiton/logs');

describe('mace inspect log', () => {
  it('says what the project fixtures report', async () => {
    const { code, stdout } = await runCli(
      'inspect',
      'log',
      join(FIXTURES, 'fail_beats_pass.sim.log'),
      join(FIXTURES, 'c_compile_error.log'),
      join(FIXTURES, 'timeout_happen_only.sim.log'),
    );
    assert.equal(code, 0);
    assert.match(stdout, /says +simulation failed at 3929250: HIT BAD TRAP on tile 2/);
    assert.match(
      stdout,
      /says +build failed: compile_error \(1 error line, first: diag\.c:14:9: error: 'counter' undeclared/,
    );
    assert.match(stdout, /says +simulation timed out \(monitor timeout, no verdict line\)/);
    assert.match(stdout, /timeout on +tile 0/);
  });

  it('prints JSON and refuses a missing file', async () => {
    const json = await runCli('inspect', 'log', '--json', join(FIXTURES, 'maxcycles.sim.log'));
    const [report] = JSON.parse(json.stdout) as { verdict: string; maxCycles: number; finishTime: number }[];
    assert.deepEqual([report!.verdict, report!.maxCycles, report!.finishTime], ['maxcycles', 2000, 1000250]);
    const missing = await runCli('inspect', 'log', '/no/such.log');
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no such log file: \/no\/such\.log/);
  });

  const expected: Record<string, string> = {
    'ariane_1x1_build_ok.excerpt.log': 'build finished: Vcmp_top linked, no errors',
    'ariane_1x1_rv64ui-p-addi_pass.sim.log': 'simulation passed at 17863750',
    'ariane_1x1_rv64ui-p-addi_pass.sims.log': 'simulation passed at 17863750',
    'ariane_1x1_rv64ui-p-addi_pass.status.log': 'simulation passed at 17863750',
    'calib_ariane_1x1_l1d_8way_wayrule.log': 'simulation passed at 17863750; the log holds 6 verdict lines, all pass',
    'calib_pico_1x1_invalid_geometries.log': 'simulation passed at 3279750; the log holds 5 verdict lines, all pass',
    'calib_pico_1x1_l15_ways_2_8.log':
      'simulation timed out at 500157750 (TIMEOUT); the log holds 6 verdict lines (5 pass, 1 timeout) and a failure decides',
    'calib_pico_2x2_amoadd_w_mask1111_badtrap.log': 'simulation failed at 3929250: HIT BAD TRAP on tile 2',
    'calib_pico_2x2_memwalk16k_cache_variants.log':
      'simulation timed out at 25157750 (TIMEOUT); the log holds 10 verdict lines (9 pass, 1 timeout) and a failure decides',
    'pico_1x1_addi_badtrap.sim.log': 'simulation failed at 2032750: HIT BAD TRAP on tile 0',
    'pico_1x1_addi_badtrap.status.log': 'simulation failed at 2032750: HIT BAD TRAP',
    'pico_1x1_addi_maxcycles.sim.log': 'simulation stopped at max cycles = 6000 at 3000250',
    'pico_1x1_addi_maxcycles.status.log': 'simulation stopped at max cycles = 6000 at 3000250',
    'pico_1x1_addi_pass.sim.log': 'simulation passed at 3279750',
    'pico_1x1_addi_pass.sims.log': 'simulation passed at 3279750',
    'pico_1x1_addi_pass.status.log': 'simulation passed at 3279750',
    'pico_1x1_build_fail_fpgasynth_pinnotfound.excerpt.log':
      "build failed: verilog_error (1 error line, first: %Error-PINNOTFOUND: $PITON_ROOT/piton/verif/env/manycore/manycore_top.tmp.v:361:6: Pin not found: 'async_mux')",
    'pico_1x1_build_fail_needtiming.excerpt.log': 'build failed: verilator_needs_timing_flag',
    'pico_1x1_build_ok.excerpt.log': 'build finished: Vcmp_top linked, no errors',
    'pico_1x1_nobist_addi_timeout.sim.log': 'simulation timed out at 25157750 (TIMEOUT)',
    'pico_1x1_nobist_addi_timeout.status.log': 'simulation timed out at 25157750 (TIMEOUT)',
    'pico_1x2_xbar_build_fail_duplicate_pin.excerpt.log':
      "build failed: verilog_error (18 error lines, first: %Error: $PITON_ROOT/piton/design/chip/rtl/chip.tmp.v:932:6: Duplicate pin connection: 'dataIn_0')",
    'pico_2x2_addi_pass_mask1111.sim.excerpt.log': 'simulation passed at 5179750',
    'pico_2x2_addi_pass_mask1111.status.log': 'simulation passed at 5179750',
    'pico_run_errors_nodiag_nomodel.log': 'sims died: no diag with name no_such_diag.S found (and 1 more)',
    'pico_tile1_group_regreport_summary.log': 'regression passed: 53 of 53 diags passed',
    'sparc_1x1_build_ok.excerpt.log': 'build finished: Vcmp_top linked, no errors',
  };

  it(
    'says of every real OpenPiton log what a person reading it would',
    { skip: existsSync(REAL_LOGS) ? false : `no real OpenPiton logs at ${REAL_LOGS} (set OPENPITON_LOGS)` },
    async () => {
      const names = Object.keys(expected);
      assert.deepEqual(readdirSync(REAL_LOGS).sort(), [...names].sort(), 'every real log has an expected reading');
      const { code, stdout } = await runCli('inspect', 'log', '--json', ...names.map((n) => join(REAL_LOGS, n)));
      assert.equal(code, 0);
      const reports = JSON.parse(stdout) as { file: string; summary: string }[];
      for (const [i, name] of names.entries())
        assert.ok(reports[i]!.summary.startsWith(expected[name]!), `${name}: ${reports[i]!.summary}`);
    },
  );
});

describe('mace inspect config', () => {
  it('prints the default build id and flags', async () => {
    const { code, stdout } = await runCli('inspect', 'config');
    assert.equal(code, 0);
    assert.match(
      stdout,
      /^build id {2}mace_ced9398212fd\nflags {5}-sys=manycore -x_tiles=1 -y_tiles=1 -network_config=2dmesh_config -ariane /,
    );
  });

  it('builds a configuration from flags, with coverage as its own build', async () => {
    const args = [
      'inspect',
      'config',
      '--core',
      'pico',
      '--mesh',
      '2x2',
      '--define',
      'CONFIG_DISABLE_BIST_CLEAR',
      '--json',
    ];
    const plain = JSON.parse((await runCli(...args)).stdout) as { build_id: string; flags: string[] };
    assert.equal(plain.build_id, 'mace_c7b769a7b19e');
    assert.ok(plain.flags.includes('-config_rtl=CONFIG_DISABLE_BIST_CLEAR'));
    const covered = JSON.parse(
      (await runCli(...args, '--coverage', '--cache', 'l2=131072,8', '--network', 'xbar_config')).stdout,
    ) as {
      build_id: string;
      flags: string[];
    };
    assert.notEqual(covered.build_id, plain.build_id);
    assert.equal(covered.flags.at(-1), '-vlt_build_args=--coverage-line');
    assert.ok(covered.flags.includes('-config_l2_associativity=8'));
    assert.ok(covered.flags.includes('-network_config=xbar_config'));
  });

  it('warns of the way rule and refuses bad input with exit code 2', async () => {
    assert.match(
      (await runCli('inspect', 'config', '--cache', 'l1i=16384,8')).stdout,
      /refused {3}way rule: l1i has 8 ways/,
    );
    for (const [args, message] of [
      [['--mesh', 'two'], /--mesh must look like 2x2/],
      [['--mesh', '300x1'], /x_tiles must be an integer 1\.\.256, got 300/],
      [['--cache', 'l1d=0,4'], /caches\.l1d: must be \[size, associativity\] with both positive integers/],
      [['--define', 'lower_case'], /RTL defines are upper snake case/],
      [['--core', 'mips'], /Allowed choices are ariane, sparc, pico/],
    ] as const) {
      const result = await runCli('inspect', 'config', ...args);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, message);
    }
  });
});

describe('mace doctor', () => {
  process.env.HOME = testEnv().HOME;

  it('needs a checkout to check', async () => {
    const saved = process.env.PITON_ROOT;
    delete process.env.PITON_ROOT;
    try {
      const none = await runCli('doctor');
      assert.equal(none.code, 2);
      assert.match(none.stderr, /pass --piton-root DIR or set PITON_ROOT/);
    } finally {
      if (saved !== undefined) process.env.PITON_ROOT = saved;
    }
    const missing = await runCli('doctor', '--piton-root', '/no/such/openpiton');
    assert.equal(missing.code, 1);
    assert.match(missing.stdout, /MISSING +PITON_ROOT +\/no\/such\/openpiton is not a directory/);
  });

  it('checks a checkout through the environment prologue and names what is missing', async () => {
    const root = fakeCheckout();
    const { code, stdout } = await runCli('doctor', '--piton-root', root, '--json');
    const report = JSON.parse(stdout) as {
      checks: { scope: string; name: string; ok: boolean; detail: string }[];
      required_failures: number;
    };
    const check = (name: string) => report.checks.find((c) => c.name === name)!;
    assert.equal(check('layout').ok, true);
    assert.equal(check('sims').detail, `${root}/piton/tools/bin/sims (on PATH after the prologue)`);
    assert.match(check('verilator version').detail, /^Verilator 5\.006 .*builds get --no-timing/);
    assert.equal(check('Verilator 5 fixes').detail, 'no PicoRV32 sources in this checkout');
    assert.equal(check('ariane submodule').ok, false);
    assert.equal(code, report.required_failures > 0 ? 1 : 0);
    assert.ok(report.checks.every((c) => c.ok || c.detail.length > 0));

    const text = await runCli('doctor', '--piton-root', root, '--core', 'ariane');
    assert.equal(text.code, 1, 'the Ariane submodule is required once ariane is asked for');
    assert.match(text.stdout, /MISSING +ariane submodule +piton\/design\/chip\/tile\/ariane is empty/);
    assert.match(text.stdout, /fix: git submodule update --init --recursive piton\/design\/chip\/tile\/ariane/);
  });

  it('says plainly that OpenPiton has no Generic Tile, and requires one only for --core generic', async () => {
    const root = fakeCheckout();
    const report = JSON.parse((await runCli('doctor', '--piton-root', root, '--json')).stdout) as {
      checks: { scope: string; name: string; ok: boolean; detail: string }[];
    };
    const generic = report.checks.find((c) => c.name === 'Generic Tile')!;
    assert.equal(generic.scope, 'generic');
    assert.equal(generic.ok, false);
    assert.match(generic.detail, /OpenPiton itself has none: its sims has no -generic_core flag/);
    const text = await runCli('doctor', '--piton-root', root, '--core', 'generic');
    assert.equal(text.code, 1);
    assert.match(text.stdout, /MISSING +Generic Tile +this checkout has no Generic Tile/);
    assert.match(text.stdout, /fix: run Generic Tile cores on an offline checkout/);
  });

  it('recognises a checkout without the two PicoRV32 fixes Verilator 5 needs', () => {
    const root = tempDir();
    mkdirSync(join(root, 'piton/design/chip/tile/pico/rtl'), { recursive: true });
    mkdirSync(join(root, 'piton/verif/env/manycore'), { recursive: true });
    const picorv32 = join(root, 'piton/design/chip/tile/pico/rtl/picorv32.v');
    const pcCmp = join(root, 'piton/verif/env/manycore/pc_cmp.v.pyv');
    writeFileSync(
      picorv32,
      "if(!reset_l) begin resetn <= 1'b0; end\n        else if (pico_int) begin\n            resetn <= 1'b1;\n        end\n",
    );
    writeFileSync(
      pcCmp,
      "`ifdef RTL_PICO0\n always @*\n begin\n if (`PICO_CORE0.pico_int == 1'b1)\n active_thread[(0*4)] = 1'b1;\n end\n`endif // RTL_PICO0\n",
    );
    assert.equal(picoResetFix(root), 'missing');
    assert.equal(picoMonitorFix(root), 'missing');
    writeFileSync(picorv32, "reg booted;\n else if (pico_int || !booted) begin resetn <= 1'b1; booted <= 1'b1; end\n");
    writeFileSync(
      pcCmp,
      "`ifdef RTL_PICO0\n always @(posedge clk) begin\n if (~rst_l) active_thread[(0*4)] <= 1'b0;\n else active_thread[(0*4)] <= 1'b1;\n end\n`endif // RTL_PICO0\n",
    );
    assert.equal(picoResetFix(root), 'applied');
    assert.equal(picoMonitorFix(root), 'applied');
    assert.equal(picoResetFix(tempDir()), 'absent');
  });
});
