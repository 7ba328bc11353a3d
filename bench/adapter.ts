/**
 * Figures for the OpenPiton adapter. Prints:
 *   - the time a rebuild of an unchanged configuration takes to be reused, in a fresh Workspace (which
 *     asks `verilator --version` through a login shell first) and in one that has asked already;
 *   - the memory growth while a command prints a large output that the adapter streams to disk.
 *
 * With PITON_ROOT set, the reuse figures come from that checkout (PicoRV32 1x1 with
 * CONFIG_DISABLE_BIST_CLEAR, built first if need be); without it, from the fake checkout the tests use.
 *
 *   node --import tsx bench/adapter.ts [--spew-mb N]
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeConfig } from '../mace/openpiton/config.ts';
import { runShell } from '../mace/openpiton/shell.ts';
import { Workspace } from '../mace/openpiton/workspace.ts';

const spewMb = Number(process.argv[process.argv.indexOf('--spew-mb') + 1] || 200);
const scratch = mkdtempSync(join(tmpdir(), 'mace-bench-'));

function fakeCheckout(): string {
  const root = join(scratch, 'openpiton');
  cpSync(new URL('../test/fixtures/openpiton/fake-checkout', import.meta.url), root, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...args], { cwd: root, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'bench');
  return root;
}

const seconds = async (work: () => Promise<unknown>) => {
  const start = performance.now();
  await work();
  return (performance.now() - start) / 1000;
};

try {
  const root = process.env.PITON_ROOT ?? fakeCheckout();
  const config = makeConfig({ core: 'pico', config_rtl: ['MINIMAL_MONITORING', 'CONFIG_DISABLE_BIST_CLEAR'] });
  const first = await new Workspace(root).build(config);
  if (!first.success) throw new Error(`the build failed: ${first.failureReason}`);
  const fresh = new Workspace(root);
  const cold = await seconds(() => fresh.build(config));
  const warm = await seconds(() => fresh.build(config));
  console.log(`checkout: ${root}${process.env.PITON_ROOT ? '' : ' (fake)'}`);
  console.log(`reuse of an unchanged build, fresh Workspace:  ${cold.toFixed(2)} s`);
  console.log(`reuse of an unchanged build, same Workspace:   ${warm.toFixed(2)} s`);

  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const spew = join(scratch, 'spew');
  const took = await seconds(() =>
    runShell({
      root,
      core: 'pico',
      cwd: scratch,
      command: `head -c ${spewMb * 1024 * 1024} /dev/zero | tr '\\0' x | fold -w 99`,
      timeoutS: 600,
      stdoutPath: `${spew}.out`,
      stderrPath: `${spew}.err`,
    }),
  );
  clearInterval(sampler);
  console.log(
    `${spewMb} MiB of output in ${took.toFixed(1)} s; peak RSS growth ${((peak - before) / 2 ** 20).toFixed(1)} MiB`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
