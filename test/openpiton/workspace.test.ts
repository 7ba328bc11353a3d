/**
 * Workspace build and run against a fake checkout whose `sims` is a stand-in script
 * (test/fixtures/openpiton/fake-checkout): the exact command lines and environment, model reuse and
 * its refusals, the way rule, failure tags from the full output, verdicts, and the build lock.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { buildId, makeConfig } from '../../mace/openpiton/config.ts';
import { LOCK_FILE } from '../../mace/openpiton/lock.ts';
import { prologue, shellQuote, shellScript } from '../../mace/openpiton/shell.ts';
import { budgetExhaustedBuild, budgetExhaustedRun, notStartedRun } from '../../mace/openpiton/unstarted.ts';
import { BUILD_MARKER, CheckoutPathError, Workspace, runArguments } from '../../mace/openpiton/workspace.ts';
import { failureEvidence } from '../../mace/openpiton/evidence.ts';
import { tempDir } from '../helpers.ts';
import { commitAll, fakeCheckout, fakeWorkspace, simsCalls, simsEnv } from './fake-checkout.ts';

const pico22 = makeConfig({
  core: 'pico',
  x_tiles: 2,
  y_tiles: 2,
  config_rtl: ['MINIMAL_MONITORING', 'CONFIG_DISABLE_BIST_CLEAR'],
});
const PICO22_FLAGS =
  '-sys=manycore -x_tiles=2 -y_tiles=2 -network_config=2dmesh_config -pico -rv32_target_triple=riscv64-unknown-elf ' +
  '-config_rtl=MINIMAL_MONITORING -config_rtl=CONFIG_DISABLE_BIST_CLEAR -config_l15_size=8192 -config_l15_associativity=4 ' +
  '-config_l1d_size=8192 -config_l1d_associativity=4 -config_l1i_size=16384 -config_l1i_associativity=4 ' +
  '-config_l2_size=65536 -config_l2_associativity=4';

describe('the environment prologue', () => {
  it('exports PITON_ROOT first and sources piton_settings.bash, with Ariane extras only for Ariane', () => {
    assert.equal(
      prologue('/x/openpiton', 'pico'),
      'export PITON_ROOT=/x/openpiton && source "$PITON_ROOT/piton/piton_settings.bash" && ' +
        'if [ -n "${VERILATOR_ROOT:-}" ]; then export PATH="$VERILATOR_ROOT/bin:$PATH"; fi && ',
    );
    const ariane = prologue("/x/open piton's", 'ariane');
    assert.ok(
      ariane.startsWith(
        `export PITON_ROOT='/x/open piton'"'"'s' && export ARIANE_ROOT="$PITON_ROOT/piton/design/chip/tile/ariane/" && `,
      ),
    );
    assert.match(ariane, /export RISCV="\$\{RISCV:-\$HOME\/scratch\/riscv_install\}"/);
    assert.match(ariane, /tmp\/verilator-4\.014\/bin\/verilator" \]; then export VERILATOR_ROOT=/);
    assert.ok(ariane.indexOf('source "$PITON_ROOT') < ariane.indexOf('export PATH="$RISCV/bin:$PATH"'));
    assert.equal(shellScript('/r', 'sparc', '/r/build', 'sims -x'), `${prologue('/r', 'sparc')}cd /r/build && sims -x`);
  });

  it('quotes words as shlex.quote does', () => {
    assert.equal(shellQuote('-config_rtl=MINIMAL_MONITORING'), '-config_rtl=MINIMAL_MONITORING');
    assert.equal(shellQuote(''), "''");
    assert.equal(shellQuote('a b'), "'a b'");
    assert.equal(shellQuote("it's"), `'it'"'"'s'`);
  });

  it('orders run arguments as the original does', () => {
    assert.deepEqual(
      runArguments(pico22, 'addi.S', 'vlt', {
        asmDiagRoot: '/w',
        rtlTimeout: 1000000,
        maxCycle: 5,
        precompiled: true,
        extraRunArgs: ['-x'],
      }).join(' '),
      `${PICO22_FLAGS} -build_id=${buildId(pico22)} -precompiled -asm_diag_root=/w -finish_mask=1111 -rtl_timeout=1000000 -max_cycle=5 -x -vlt_run addi.S`,
    );
    assert.deepEqual(runArguments(pico22, 'addi.S', 'vlt', { finishMask: '' }).slice(-2), ['-vlt_run', 'addi.S']);
    const unit = makeConfig({ sys: 'pico_reset_ut', extra_flags: ['-some_flag'] });
    assert.deepEqual(runArguments(unit, 'ignored', 'vlt', { extraRunArgs: ['+test_case=1'], rtlTimeout: 9 }), [
      '-sys=pico_reset_ut',
      '-some_flag',
      `-build_id=${buildId(unit)}`,
      '+test_case=1',
      '-vlt_run',
    ]);
  });
});

describe('Workspace.build', () => {
  it('runs sims with the original command line and environment, then reuses the model', async () => {
    const root = fakeCheckout();
    const workspace = fakeWorkspace(root, { MAKEFLAGS: '-j1' });
    const first = await workspace.build(pico22);
    assert.equal(first.success, true, first.stderr);
    assert.equal(first.reused, false);
    assert.equal(first.verilatorVersion, 'Verilator 5.006 2023-01-22 rev (Debian 5.006-3)');
    const id = buildId(pico22);
    assert.deepEqual(simsCalls(root), [`${PICO22_FLAGS} -build_id=${id} -vlt_build -vlt_build_args=--no-timing`]);
    const env = simsEnv(root);
    assert.equal(env.cwd, join(root, 'build'));
    assert.equal(env.PITON_ROOT, root);
    assert.equal(env.DV_ROOT, join(root, 'piton'));
    assert.equal(env.PATH0, join(root, 'piton/tools/bin'));
    assert.equal(env.MAKEFLAGS, '-j1');
    assert.equal(env.ARIANE_ROOT, '');
    assert.equal(first.modelDir, join(root, 'build/manycore', id));
    assert.equal(first.binaryPath, join(first.modelDir, 'obj_dir/Vcmp_top'));
    assert.match(readFileSync(first.outputPath, 'utf8'), /creating model directory/);
    assert.match(
      readFileSync(join(first.modelDir, BUILD_MARKER), 'utf8'),
      new RegExp(`^${first.cacheKey}\\n[0-9a-f]{64}\\n$`),
    );

    const again = await workspace.build(pico22);
    assert.equal(again.reused, true);
    assert.equal(again.wallTimeS, 0);
    assert.equal(again.binaryPath, first.binaryPath);
    assert.equal(simsCalls(root).length, 1, 'a reused model runs no sims');

    const clean = await workspace.build(pico22, { clean: true });
    assert.equal(clean.reused, false);
    assert.equal(simsCalls(root).length, 2, 'clean always rebuilds');
  });

  it('clears and rebuilds a stale model, never serving it', async () => {
    const root = fakeCheckout();
    const workspace = fakeWorkspace(root);
    const first = await workspace.build(pico22);
    const builtAt = readFileSync(join(first.modelDir, 'obj_dir/built_at'), 'utf8');
    writeFileSync(join(first.modelDir, 'obj_dir/leftover'), 'from the old model');
    writeFileSync(join(root, 'piton/tools/bin/new_tool'), 'an untracked file changes the sources');
    const second = await workspace.build(pico22);
    assert.equal(second.reused, false);
    assert.equal(second.stale, true);
    assert.equal(existsSync(join(first.modelDir, 'obj_dir/leftover')), false, 'obj_dir was cleared');
    assert.notEqual(readFileSync(join(first.modelDir, 'obj_dir/built_at'), 'utf8'), builtAt);
    commitAll(root);
    const third = await workspace.build(pico22);
    assert.equal(third.reused, false, 'committing changes HEAD, so the model is stale again');
    assert.equal((await workspace.build(pico22)).reused, true);
    assert.equal(simsCalls(root).length, 3);
  });

  it('rebuilds when Verilator changes', async () => {
    const root = fakeCheckout();
    const built = await fakeWorkspace(root).build(pico22);
    assert.equal(built.success, true);
    const newer = fakeWorkspace(root, { FAKE_VERILATOR_VERSION: 'Verilator 5.020 2024-01-01' });
    const rebuilt = await newer.build(pico22);
    assert.equal(rebuilt.reused, false);
    assert.equal(rebuilt.stale, true);
    assert.equal(rebuilt.verilatorVersion, 'Verilator 5.020 2024-01-01');
  });

  it('adds no --no-timing for Verilator 4 or when a timing argument is given', async () => {
    const root = fakeCheckout();
    await fakeWorkspace(root, { FAKE_VERILATOR_VERSION: 'Verilator 4.038 2020-07-11' }).build(pico22);
    await fakeWorkspace(root).build(pico22, { clean: true, extraBuildArgs: ['--timing'] });
    const calls = simsCalls(root);
    assert.ok(calls[0]!.endsWith('-vlt_build'), calls[0]);
    assert.ok(calls[1]!.endsWith('-vlt_build -vlt_build_args=--timing'), calls[1]);
  });

  it('refuses Ariane way-rule violations before any sims call', async () => {
    const root = fakeCheckout();
    const config = makeConfig({ core: 'ariane', caches: { l1d: [16384, 8] } });
    const result = await fakeWorkspace(root).build(config);
    assert.equal(result.success, false);
    assert.equal(result.failureReason, 'way_rule');
    assert.equal(result.returncode, -1);
    assert.deepEqual(result.errors, ["l1d has 8 ways, more than the L1.5's 4"]);
    assert.deepEqual(simsCalls(root), []);
    assert.match(failureEvidence(result), /Build failure reason: way_rule\n\nBuild errors:\nl1d has 8 ways/);
  });

  it('reads the failure reason and errors from the full output, not the tail', async () => {
    const root = fakeCheckout();
    const result = await fakeWorkspace(root, { FAKE_SIMS_FAIL_BUILD: '1' }).build(pico22);
    assert.equal(result.success, false);
    assert.equal(result.returncode, 1);
    assert.equal(result.failureReason, 'verilog_error');
    assert.ok(!result.stdout.includes('PINNOTFOUND'), 'the error is before the 8000-character tail');
    assert.deepEqual(result.errors, [
      `%Error-PINNOTFOUND: ${root}/piton/verif/env/manycore/manycore_top.tmp.v:361:6: Pin not found: 'async_mux'`,
    ]);
    assert.equal(existsSync(join(result.modelDir, BUILD_MARKER)), false);
    const evidence = failureEvidence(result);
    assert.match(evidence, /^Build flags: -sys=manycore -x_tiles=2/);
    assert.match(evidence, /Build output \(tail\):\n[\s\S]*failed building model/);
  });

  it('calls a model without a binary a failure', async () => {
    const root = fakeCheckout();
    const unit = makeConfig({ sys: 'nothing_ut' });
    writeFileSync(join(root, 'piton/tools/bin/sims'), '#!/bin/sh\necho "sims: built nothing"\n');
    const result = await fakeWorkspace(root).build(unit);
    assert.equal(result.success, false);
    assert.equal(result.failureReason, 'no_model_binary');
  });

  it('finds a unit-test model by its one obj_dir/V* executable', async () => {
    const root = fakeCheckout();
    const unit = makeConfig({ sys: 'pico_reset_ut' });
    const result = await fakeWorkspace(root).build(unit);
    assert.equal(result.success, true);
    assert.equal(basename(result.binaryPath), 'Vpico_reset_ut_top');
    assert.deepEqual(simsCalls(root), [
      `-sys=pico_reset_ut -build_id=${buildId(unit)} -vlt_build -vlt_build_args=--no-timing`,
    ]);
  });

  it('rejects an unknown simulator type', async () => {
    await assert.rejects(
      fakeWorkspace(fakeCheckout()).build(pico22, { simType: 'iverilog' as 'vlt' }),
      /simType must be one of vlt, vcs/,
    );
  });
});

describe('Workspace.run', () => {
  const root = fakeCheckout();
  const workspace = fakeWorkspace(root);

  it('simulates in a fresh run directory and reads the verdict fail-closed', async () => {
    await workspace.build(pico22);
    const run = await workspace.run(pico22, 'sub/addi.S', { rtlTimeout: 1000000 });
    assert.equal(run.success, true, run.stderr);
    assert.equal(run.verdict, 'pass');
    assert.equal(run.simTime, 3279750);
    assert.deepEqual(run.statusDiag, { name: 'sub/addi.S', status: 'PASS' });
    assert.match(basename(run.runDir), /^sub_addi\.S-\d{13}-[0-9a-f]{8}$/);
    assert.equal(join(run.runDir, '../..'), workspace.modelDir(pico22));
    assert.equal(simsEnv(root).cwd, run.runDir);
    assert.match(run.fakeUart, /fake UART/);
    const other = await workspace.run(pico22, 'sub/addi.S');
    assert.notEqual(other.runDir, run.runDir);
  });

  for (const verdict of ['fail', 'timeout', 'maxcycles'] as const)
    it(`fails a ${verdict} verdict`, async () => {
      const w = fakeWorkspace(root, { FAKE_SIMS_VERDICT: verdict });
      const run = await w.run(pico22, 'addi.S');
      assert.equal(run.verdict, verdict);
      assert.equal(run.success, false);
      assert.equal(run.returncode, 0);
    });

  it('reads the verdict from stdout when there is no sim.log, and keeps the full log out of memory', async () => {
    const build = await workspace.build(pico22);
    const run = await fakeWorkspace(root, { FAKE_SIMS_NO_SIM_LOG: '1', FAKE_SIMS_BIG_SIM_LOG: '1' }).run(
      pico22,
      'addi.S',
    );
    assert.equal(run.verdict, 'pass');
    assert.ok(run.simLogTail.length <= 8000);
    assert.ok(!run.simLogTail.includes('Simulation ->'), 'the verdict is long before the tail');
    assert.match(
      failureEvidence(build, run),
      /Sim log \(tail\):\n.*\nCurrent PC[\s\S]*\n\nStatus log:\nDiag: addi.S +PASS/,
    );
  });

  it('has no verdict when sims dies before simulating', async () => {
    const missing = makeConfig({ core: 'pico', x_tiles: 3 });
    const run = await workspace.run(missing, 'addi.S');
    assert.equal(run.verdict, null);
    assert.equal(run.success, false);
    assert.equal(run.returncode, 1);
    assert.equal(run.statusDiag, null);
  });
});

describe('the build lock', () => {
  it('builds one configuration at a time per checkout in this process', async () => {
    const root = fakeCheckout();
    const workspace = fakeWorkspace(root, { FAKE_SIMS_SLEEP: '0.3' });
    const other = makeConfig({ core: 'pico' });
    await Promise.all([workspace.build(pico22), fakeWorkspace(root, { FAKE_SIMS_SLEEP: '0.3' }).build(other)]);
    const times = readFileSync(join(root, 'sims_times.log'), 'utf8').trim().split('\n');
    assert.deepEqual(
      times.map((t) => t.split(' ')[0]),
      ['start', 'end', 'start', 'end'],
      'the second build started after the first ended',
    );
  });

  it('waits for a live holder in another process, and gives up at the deadline', async () => {
    const root = fakeCheckout();
    const holder = spawn('sleep', ['30']);
    try {
      mkdirSync(join(root, 'build'));
      writeFileSync(join(root, 'build', LOCK_FILE), `${holder.pid} ${(await import('node:os')).hostname()} now\n`);
      const result = await fakeWorkspace(root).build(pico22, { timeoutS: 1 });
      assert.equal(result.success, false);
      assert.equal(result.failureReason, 'checkout_busy');
      assert.match(result.stderr, new RegExp(`held by pid ${holder.pid}`));
      assert.deepEqual(simsCalls(root), []);
    } finally {
      holder.kill();
    }
  });

  it('takes over a lock whose holder has died, and releases its own', async () => {
    const root = fakeCheckout();
    const dead = spawn('true');
    await new Promise((done) => dead.on('exit', done));
    const lock = join(root, 'build', LOCK_FILE);
    mkdirSync(join(root, 'build'));
    writeFileSync(lock, `${dead.pid} ${(await import('node:os')).hostname()} then\n`);
    const result = await fakeWorkspace(root).build(pico22);
    assert.equal(result.success, true);
    assert.equal(existsSync(lock), false);
  });
});

describe('checkout files', () => {
  it('reads and writes inside the checkout only', async () => {
    const root = fakeCheckout();
    const workspace = fakeWorkspace(root);
    await workspace.writeFile('piton/design/new/edit.v', 'module edit; endmodule\n');
    assert.equal(await workspace.readFile('piton/design/new/edit.v'), 'module edit; endmodule\n');
    await assert.rejects(workspace.readFile('/etc/passwd'), CheckoutPathError);
    await assert.rejects(workspace.writeFile('../outside.v', 'x'), /leads outside the checkout/);
    const outside = tempDir();
    symlinkSync(outside, join(root, 'piton/escape'));
    await assert.rejects(workspace.writeFile('piton/escape/x.v', 'x'), /through a symbolic link/);
    assert.deepEqual(readdirSync(outside), []);
  });
});

describe('artifacts for work that never started', () => {
  it('records a budget-exhausted build and run without running anything', () => {
    const build = budgetExhaustedBuild(pico22);
    assert.equal(build.success, false);
    assert.equal(build.failureReason, 'budget_exhausted');
    assert.equal(build.returncode, -1);
    assert.equal(build.modelDir, '');
    assert.equal(build.buildId, buildId(pico22));
    const run = budgetExhaustedRun(pico22, 'addi.S');
    assert.equal(run.success, false);
    assert.equal(run.returncode, -1);
    assert.equal(run.verdict, null);
    assert.match(run.stderr, /^budget_exhausted: the run's time budget ran out before this simulation$/);
    assert.equal(notStartedRun(pico22, 'addi.S', 'build failed').stderr, 'build failed');
    assert.equal(
      failureEvidence(build),
      `Build flags: ${PICO22_FLAGS}\n\nBuild failure reason: budget_exhausted\n\nBuild output (tail):\n${build.stderr}`,
    );
  });
});
