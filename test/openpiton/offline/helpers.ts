/**
 * Driving an offline checkout's sims with the adapter's prologue: PITON_ROOT exported first, Ariane's
 * exports, piton_settings.bash sourced, then `cd <cwd> && sims <flags>`. These tests run `bash -c`
 * (the adapter's `bash -lc` also reads the login profile, which costs a second here and tests
 * nothing of the model); the adapter's own path is tested in adapter.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildId,
  makeConfig,
  simsFlags,
  type PitonConfig,
  type PitonConfigInput,
} from '../../../mace/openpiton/config.ts';
import { initOfflineCheckout, type OfflineCheckoutOptions } from '../../../mace/openpiton/offline/checkout.ts';
import { tempDir } from '../../helpers.ts';

/**
 * A fresh offline checkout (speed 0: no waiting) in a temporary folder removed after the test file.
 * Call it at module scope or in a test, not in a before() hook (the folder's after() would run then).
 */
export async function offlineCheckout(
  options: OfflineCheckoutOptions = {},
  dir = tempDir('mace-offline-'),
): Promise<string> {
  const { root } = await initOfflineCheckout(join(dir, 'openpiton'), { speed: 0, ...options });
  return root;
}

const quote = (w: string) => `'${w.replaceAll("'", `'\\''`)}'`;

export interface SimsCall {
  readonly code: number;
  readonly stdout: string;
  readonly cwd: string;
}

export function sims(
  root: string,
  cwd: string,
  args: readonly string[],
  core: string,
  env: Record<string, string> = {},
): SimsCall {
  mkdirSync(cwd, { recursive: true });
  const prologue = [`export PITON_ROOT=${quote(root)}`];
  if (core === 'ariane') prologue.push('export ARIANE_ROOT="$PITON_ROOT/piton/design/chip/tile/ariane/"');
  prologue.push('source "$PITON_ROOT/piton/piton_settings.bash"');
  const script = `${prologue.join(' && ')} && cd ${quote(cwd)} && sims ${args.map(quote).join(' ')}`;
  const result = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: result.status ?? -1, stdout: result.stdout + result.stderr, cwd };
}

export const config = (input: PitonConfigInput): PitonConfig => makeConfig(input);

export const pico = (x: number, y: number, extra: Partial<PitonConfigInput> = {}): PitonConfig =>
  config({
    core: 'pico',
    x_tiles: x,
    y_tiles: y,
    config_rtl: ['MINIMAL_MONITORING', 'CONFIG_DISABLE_BIST_CLEAR'],
    ...extra,
  });

/** `sims <flags> -build_id=<id> -vlt_build -vlt_build_args=--no-timing` in build/, as the adapter builds. */
export function build(root: string, c: PitonConfig, buildArgs: readonly string[] = ['--no-timing']): SimsCall {
  const args = [
    ...simsFlags(c),
    `-build_id=${buildId(c)}`,
    '-vlt_build',
    ...buildArgs.map((a) => `-vlt_build_args=${a}`),
  ];
  return sims(root, join(root, 'build'), args, c.core);
}

let runs = 0;

/** `sims <flags> -build_id=<id> [run args] -vlt_run <test>` in a fresh run directory. */
export function run(
  root: string,
  c: PitonConfig,
  test: string,
  runArgs: readonly string[] = [],
  env: Record<string, string> = {},
): SimsCall & { readonly file: (name: string) => string } {
  const cwd = join(root, 'build', c.sys, buildId(c), 'runs', `${test}-${process.pid}-${runs++}`);
  const call = sims(root, cwd, [...simsFlags(c), `-build_id=${buildId(c)}`, ...runArgs, '-vlt_run', test], c.core, env);
  return { ...call, file: (name: string) => readFileSync(join(cwd, name), 'utf8') };
}

/** The verdict line of a sim.log. */
export const verdictLine = (text: string): string | undefined => /^.*Simulation ->.*$/m.exec(text)?.[0];
