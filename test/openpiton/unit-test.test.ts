/**
 * Unit-test environments on the offline checkout through the adapter: create_env.py's scaffold and
 * the Verilator edits, the build of `-sys=<env>` (which fails on the scaffold's placeholders, on a pin
 * the module does not have, and passes when the ports match), the run that stops where Verilator
 * stops, and the restore that leaves the checkout as it was.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { adaptedTestbench } from '../../mace/llm/scripted/testbench.ts';
import { makeConfig } from '../../mace/openpiton/config.ts';
import {
  CREATE_ENV,
  readDutPorts,
  readTestbench,
  restoreUnitTestScaffold,
  scaffoldUnitTest,
  unitTestEnvName,
  verilatorConfig,
  writeTestbench,
} from '../../mace/openpiton/unit-test.ts';
import { Workspace } from '../../mace/openpiton/workspace.ts';
import { tempDir } from '../helpers.ts';
import { testEnv } from './fake-checkout.ts';
import { offlineCheckout, sims } from './offline/helpers.ts';

const PICORV32 = 'piton/design/chip/tile/pico/rtl/picorv32.v';
const gitStatus = (root: string) => execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' });

describe('unit-test environment names and config edits', () => {
  it('names an environment after the module path', () => {
    assert.equal(unitTestEnvName(PICORV32), 'piton_design_chip_tile_pico_rtl_picorv32_ut');
    assert.equal(unitTestEnvName('design/foo.v'), 'design_foo_ut');
    assert.equal(
      unitTestEnvName('piton/design/chip/tile/l15/rtl/l15_pipeline.v.pyv').endsWith('_l15_pipeline_ut'),
      true,
    );
  });

  it("drops the scaffold's guessed flist, env_base and VCS-only arguments, and keeps the include folder", () => {
    const config = [
      '<e>',
      '    -model=e',
      '    -flist=$DV_ROOT/design/e/rtl/Flist.e',
      '    -flist=$DV_ROOT/verif/env/e/e.flist',
      '    -env_base=$DV_ROOT/verif/env/e',
      '    -vcs_build_args=+incdir+$DV_ROOT/verif/env/test_infrstrct/',
      '    -vcs_build_args=+notimingcheck',
      '    -vcs_build_args=+nospecify',
      '    -vcs_build_args=+nbaopt',
      '    -vcs_build_args=-Xstrict=1 -notice',
      '</e>',
    ].join('\n');
    assert.deepEqual(verilatorConfig(config, 'e').split('\n'), [
      '<e>',
      '    -model=e',
      '    -flist=$DV_ROOT/verif/env/e/e.flist',
      '    -sim_build_args=+incdir+$DV_ROOT/verif/env/test_infrstrct/',
      '</e>',
    ]);
  });
});

describe('a unit-test environment on the offline checkout', async () => {
  const root = await offlineCheckout();
  const ws = new Workspace(root, { env: testEnv() });

  it('scaffolds with create_env.py, builds once the testbench matches the module, and restores the checkout', async () => {
    const scaffold = await scaffoldUnitTest(root, PICORV32);
    const { env } = scaffold;
    assert.equal(scaffold.created, true);
    assert.match(
      readFileSync(join(root, env.flist), 'utf8'),
      /_top\.v\n\$DV_ROOT\/design\/chip\/tile\/pico\/rtl\/picorv32\.v\n$/,
    );
    const config = readFileSync(join(root, env.config), 'utf8');
    assert.doesNotMatch(config, /Flist\.|env_base|vcs_build_args/);
    assert.match(
      readFileSync(join(root, 'piton/tools/src/sims/sims.config'), 'utf8'),
      new RegExp(`#include "${env.name}.config"\n$`),
    );
    const unit = makeConfig({ sys: env.name, core: 'pico', config_rtl: [] });

    const raw = await ws.build(unit);
    assert.equal(raw.success, false, 'the scaffold itself does not build');
    assert.ok(raw.errors.some((e) => e.endsWith("Can't find definition of variable: 'SRC_BIT_WIDTH'")));
    assert.ok(raw.errors.some((e) => e.endsWith(`Cannot find file containing module: '${env.name}'`)));

    const dut = readDutPorts(root, PICORV32);
    assert.ok('ports' in dut);
    const scaffolded = readTestbench(root, env);
    writeTestbench(root, env, adaptedTestbench(scaffolded, env.name, 'picorv32', dut.ports, 'mem_valid'));
    const wrong = await ws.build(unit);
    assert.equal(wrong.success, false);
    assert.equal(wrong.failureReason, 'verilog_error');
    const tb = `${root}/${env.testbench}`;
    const line =
      readTestbench(root, env)
        .split('\n')
        .findIndex((l) => l.includes('.mem_valid_WRONG')) + 1;
    assert.deepEqual(wrong.errors, [`%Error-PINNOTFOUND: ${tb}:${line}:10: Pin not found: 'mem_valid_WRONG'`]);
    assert.match(wrong.stdout, /%Warning-PINMISSING: .*: Cell has missing pin: 'mem_valid'/);
    assert.match(
      wrong.stdout,
      /%Error: Exiting due to 1 error\(s\)\nsims: Caught a SIGDIE\. failed building model at .*sims,2\.0 line 1588\./,
    );

    writeTestbench(root, env, adaptedTestbench(scaffolded, env.name, 'picorv32', dut.ports));
    const built = await ws.build(unit);
    assert.equal(built.success, true, built.errors.join('\n'));
    assert.equal(built.binaryPath, join(root, 'build', env.name, built.buildId, 'obj_dir', `V${env.name}_top`));

    const run = await ws.run(unit, env.name);
    assert.equal(run.success, false);
    assert.match(run.simLogTail, /test_infrstrct\.v:\d+: Settle region did not converge\./);

    scaffold.restore();
    assert.equal(gitStatus(root), '', 'sims.config and the scaffold are gone');
    assert.equal(existsSync(join(root, env.dir)), false);
  });

  it('undoes a scaffold a crash left behind', async () => {
    const copy = join(tempDir(), 'openpiton');
    cpSync(root, copy, { recursive: true });
    await scaffoldUnitTest(copy, PICORV32);
    assert.notEqual(gitStatus(copy), '');
    restoreUnitTestScaffold(copy);
    assert.equal(gitStatus(copy), '');
  });

  it('keeps an environment that was already there and restores only its testbench', async () => {
    const copy = join(tempDir(), 'openpiton');
    cpSync(root, copy, { recursive: true });
    execFileSync('python3', [CREATE_ENV, `--name=${unitTestEnvName(PICORV32)}`, '--author=someone'], {
      cwd: copy,
      env: { ...process.env, DV_ROOT: join(copy, 'piton') },
    });
    const before = gitStatus(copy);
    const scaffold = await scaffoldUnitTest(copy, PICORV32);
    assert.equal(scaffold.created, false);
    const theirs = readTestbench(copy, scaffold.env);
    writeTestbench(copy, scaffold.env, 'module changed; endmodule\n');
    scaffold.restore();
    assert.equal(readTestbench(copy, scaffold.env), theirs);
    assert.equal(gitStatus(copy), before);
  });

  it('still dies for a system sims.config does not name', () => {
    const call = sims(root, join(root, 'build'), ['-sys=no_such_env', '-vlt_build'], 'pico');
    assert.equal(call.code, 1);
    assert.match(call.stdout, /Caught a SIGDIE\. could not find no_such_env in .*sims\.config at .* line 2013\./);
  });

  it("reports the missing include folder when the config keeps create_env.py's VCS arguments", async () => {
    const { env, restore } = await scaffoldUnitTest(root, PICORV32);
    try {
      const config = join(root, env.config);
      writeFileSync(
        config,
        readFileSync(config, 'utf8').replace('-sim_build_args=+incdir+', '-vcs_build_args=+incdir+'),
      );
      const dut = readDutPorts(root, PICORV32);
      assert.ok('ports' in dut);
      writeTestbench(root, env, adaptedTestbench(readTestbench(root, env), env.name, 'picorv32', dut.ports));
      const built = await ws.build(makeConfig({ sys: env.name, core: 'pico', config_rtl: [] }));
      assert.equal(built.success, false);
      assert.match(built.errors[0]!, /_top\.v:6:10: Cannot find include file: 'test_infrstrct\.v'$/);
    } finally {
      restore();
    }
  });
});
