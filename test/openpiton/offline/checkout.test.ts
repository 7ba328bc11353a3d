/** Creating offline checkouts: the layout, git, settings, the default roots and their races. */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { modelVersion } from '../../../mace/openpiton/offline/bundle.ts';
import {
  checkoutBackend,
  checkoutModelVersion,
  initOfflineCheckout,
} from '../../../mace/openpiton/offline/checkout.ts';
import { KNOWN_DEFINES } from '../../../mace/openpiton/offline/defines.ts';
import { defaultOfflineRoots } from '../../../mace/openpiton/offline/roots.ts';
import { ROOT, runCli, tempDir } from '../../helpers.ts';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** The plan check's define index: upper-snake-case words of the text files under these folders. */
function defineIndex(root: string): Set<string> {
  const words = new Set<string>();
  for (const dir of ['piton/design', 'piton/verif', 'piton/tools/src', 'piton/tools/verilator']) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8', withFileTypes: false })) {
      const path = join(root, dir, entry);
      let text: Buffer;
      try {
        text = readFileSync(path);
      } catch {
        continue; // a folder
      }
      if (text.includes(0)) continue; // binary
      for (const m of text.toString('utf8').matchAll(/\b[A-Z][A-Z0-9_]*\b/g)) words.add(m[0]);
    }
  }
  return words;
}

describe('initOfflineCheckout', () => {
  const dir = tempDir('mace-offline-init-');

  it('lays out a committed checkout with its settings beside the model sims', async () => {
    const root = join(dir, 'a');
    const checkout = await initOfflineCheckout(root, { speed: 0.5, flakeRate: 0.1, seed: 3 });
    assert.equal(checkout.modelVersion, modelVersion());
    assert.equal(checkoutModelVersion(root), modelVersion());
    assert.equal(checkoutBackend(root), `offline-model ${modelVersion()}`);
    assert.equal(checkoutBackend(dir), 'openpiton');
    for (const path of [
      'piton/piton_settings.bash',
      'piton/tools/bin/sims',
      'piton/verif/env/manycore/pc_cmp.v.pyv',
      'MACE_OFFLINE.md',
    ])
      assert.ok(existsSync(join(root, path)), path);
    assert.equal(git(root, 'rev-list', '--count', 'HEAD'), '1');
    assert.equal(git(root, 'status', '--porcelain'), '', 'settings and builds are ignored: a clean tree');
    const settings = JSON.parse(readFileSync(join(root, 'piton/tools/bin/mace_offline_settings.json'), 'utf8'));
    assert.deepEqual(settings, { speed: 0.5, flakeRate: 0.1, seed: 3 });
    assert.match(
      execFileSync(
        'bash',
        [
          '-c',
          `export PITON_ROOT=${root}; source $PITON_ROOT/piton/piton_settings.bash; echo $DV_ROOT $MODEL_DIR; command -v sims; verilator --version`,
        ],
        { encoding: 'utf8' },
      ),
      new RegExp(`^${root}/piton ${root}/build\n${root}/piton/tools/bin/sims\nVerilator 5\\.006 .*mace offline model`),
    );
  });

  it('gives the plan check real defines to find and no invented ones', async () => {
    const root = join(dir, 'b');
    await initOfflineCheckout(root, { speed: 0 });
    const index = defineIndex(root);
    for (const define of [
      'CONFIG_DISABLE_BIST_CLEAR',
      'PITON_FPGA_SYNTH',
      'MINIMAL_MONITORING',
      'CONFIG_L15_SIZE',
      'CONFIG_L2_ASSOCIATIVITY',
      'NO_SCAN',
      'WT_DCACHE',
    ])
      assert.ok(index.has(define), define);
    for (const define of KNOWN_DEFINES) assert.ok(index.has(define), define);
    for (const invented of ['FOO_BAR_UNKNOWN', 'ENABLE_L3_CACHE', 'MACE_OFFLINE_SPEED', 'DISABLE_BIST'])
      assert.ok(!index.has(invented), invented);
  });

  it('refuses a directory that is not empty unless forced, and bad settings', async () => {
    const root = join(dir, 'c');
    await initOfflineCheckout(root, { speed: 0 });
    await assert.rejects(initOfflineCheckout(root), /is not empty; pass --force/);
    await initOfflineCheckout(root, { force: true, speed: 0 });
    await assert.rejects(
      initOfflineCheckout(join(dir, 'd'), { flakeRate: 2 }),
      /flake rate must be between 0 and 1, got 2/,
    );
    assert.ok(!existsSync(join(dir, 'd')));
  });

  it('is what `mace offline init` makes, with usage errors as exit 2', async () => {
    const ok = await runCli('offline', 'init', join(dir, 'e'), '--speed', '0', '--json');
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).modelVersion, modelVersion());
    const again = await runCli('offline', 'init', join(dir, 'e'));
    assert.equal(again.code, 2);
    assert.match(again.stderr, /is not empty; pass --force/);
    const bad = await runCli('offline', 'init', join(dir, 'f'), '--speed', 'fast');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--speed <factor>' argument 'fast' is invalid/);
  });
});

describe('defaultOfflineRoots', () => {
  it('creates the checkouts once and re-creates one whose model is out of date', async () => {
    const home = tempDir('mace-home-');
    const roots = await defaultOfflineRoots(2, { home, speed: 0 });
    assert.deepEqual(roots, [join(home, 'offline/checkout-0'), join(home, 'offline/checkout-1')]);
    const head = git(roots[0]!, 'rev-parse', 'HEAD');
    assert.deepEqual(await defaultOfflineRoots(2, { home }), roots);
    assert.equal(git(roots[0]!, 'rev-parse', 'HEAD'), head, 'an up-to-date checkout is left alone');
    writeFileSync(join(roots[1]!, 'piton/tools/bin/mace_offline_model.json'), '{"version":"000000000000"}\n');
    await defaultOfflineRoots(2, { home });
    assert.equal(checkoutModelVersion(roots[1]!), modelVersion());
    const settings = JSON.parse(readFileSync(join(roots[1]!, 'piton/tools/bin/mace_offline_settings.json'), 'utf8'));
    assert.equal(settings.speed, 0, 'the re-created checkout keeps its settings');
  });

  it('is safe when two processes ask at once', async () => {
    const home = tempDir('mace-home-');
    const ask = () =>
      promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'test/fixtures/offline-roots.ts'), home, '2'],
        { cwd: ROOT },
      );
    const [a, b] = await Promise.all([ask(), ask()]);
    assert.deepEqual(JSON.parse(a.stdout), JSON.parse(b.stdout));
    for (const root of JSON.parse(a.stdout) as string[]) {
      assert.equal(checkoutModelVersion(root), modelVersion());
      assert.equal(git(root, 'rev-list', '--count', 'HEAD'), '1');
    }
    assert.deepEqual(
      readdirSync(join(home, 'offline')).sort(),
      ['checkout-0', 'checkout-1'],
      'no lock or half-made checkout left',
    );
  });
});
