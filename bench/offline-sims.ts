/**
 * What an offline checkout's sims costs per call, and how long its builds and runs take at a speed
 * factor. Prints figures; asserts nothing.
 *
 *   node --import tsx bench/offline-sims.ts [--speed 0.01] [--calls 20]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildId, makeConfig, simsFlags, type PitonConfig } from '../mace/openpiton/config.ts';
import { initOfflineCheckout } from '../mace/openpiton/offline/checkout.ts';

const { values } = parseArgs({
  options: { speed: { type: 'string', default: '0.01' }, calls: { type: 'string', default: '20' } },
});
const speed = Number(values.speed);
const calls = Number(values.calls);

const dir = mkdtempSync(join(tmpdir(), 'mace-bench-offline-'));
const started = performance.now();
const { root } = await initOfflineCheckout(join(dir, 'openpiton'), { speed });
console.log(`init: ${((performance.now() - started) / 1000).toFixed(2)} s (esbuild bundle, template, git commit)`);

/** Seconds of one command in the adapter's prologue; `login` adds bash -l's profile as the adapter does. */
function timed(cwd: string, args: string[], login = false): { seconds: number; code: number } {
  mkdirSync(cwd, { recursive: true });
  const ariane = args.includes('-ariane') ? ' && export ARIANE_ROOT="$PITON_ROOT/piton/design/chip/tile/ariane/"' : '';
  const script = `export PITON_ROOT=${root}${ariane} && source "$PITON_ROOT/piton/piton_settings.bash" && cd ${cwd} && sims ${args.join(' ')}`;
  const t = performance.now();
  const result = spawnSync('bash', [login ? '-lc' : '-c', script], { stdio: 'ignore' });
  return { seconds: (performance.now() - t) / 1000, code: result.status ?? -1 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const bare = Array.from({ length: calls }, () => {
  const t = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return (performance.now() - t) / 1000;
});
const version = Array.from({ length: calls }, () => timed(root, ['-version']).seconds);
console.log(`node -e 0: median ${(median(bare) * 1000).toFixed(0)} ms`);
console.log(
  `sims -version (bash -c, prologue, launcher, bundle): median ${(median(version) * 1000).toFixed(0)} ms over ${calls} calls`,
);

const pico = (x: number, y: number) =>
  makeConfig({ core: 'pico', x_tiles: x, y_tiles: y, config_rtl: ['MINIMAL_MONITORING', 'CONFIG_DISABLE_BIST_CLEAR'] });
const ariane = (x: number, y: number) => makeConfig({ core: 'ariane', x_tiles: x, y_tiles: y });

function buildAndRun(label: string, c: PitonConfig, test: string, runArgs: string[]): void {
  const build = timed(join(root, 'build'), [
    ...simsFlags(c),
    `-build_id=${buildId(c)}`,
    '-vlt_build',
    '-vlt_build_args=--no-timing',
  ]);
  const runDir = join(root, 'build', 'manycore', buildId(c), 'runs', `${test}-bench`);
  const run = timed(runDir, [...simsFlags(c), `-build_id=${buildId(c)}`, ...runArgs, '-vlt_run', test]);
  console.log(
    `${label.padEnd(34)} build ${build.seconds.toFixed(2)} s   run ${run.seconds.toFixed(2)} s   (exit ${build.code}/${run.code})`,
  );
}

console.log(`\nat speed ${speed} (bash -c; the adapter's bash -lc adds the login profile):`);
buildAndRun('pico 1x1 addi.S', pico(1, 1), 'addi.S', ['-finish_mask=1']);
buildAndRun('pico 2x2 addi.S', pico(2, 2), 'addi.S', ['-finish_mask=1111']);
buildAndRun('pico 4x4 addi.S (rtl_timeout 50000)', pico(4, 4), 'addi.S', ['-finish_mask=1111111111111111']);
buildAndRun('ariane 1x1 rv64ui-p-addi', ariane(1, 1), 'rv64ui-p-addi.S', ['-precompiled', '-finish_mask=1']);
buildAndRun('ariane 2x2 rv64ui-p-addi (timeout)', ariane(2, 2), 'rv64ui-p-addi.S', [
  '-precompiled',
  '-finish_mask=1111',
]);

const login = Array.from({ length: Math.min(calls, 5) }, () => timed(root, ['-version'], true).seconds);
console.log(
  `\nsims -version through bash -lc (as the adapter runs it): median ${(median(login) * 1000).toFixed(0)} ms`,
);
rmSync(dir, { recursive: true, force: true });
