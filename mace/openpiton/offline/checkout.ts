/**
 * Creating an offline checkout: the template's files, the bundled model sims, a git repository with
 * one commit (the adapter fingerprints checkouts by their commits and diffs), and the per-machine
 * settings beside the sims.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { bundleSims, modelVersion } from './bundle.ts';
import { DEFAULT_SETTINGS, loadSettings, SETTINGS_FILE, type ModelSettings } from './sims/runtime.ts';
import { BUNDLE_FILE, checkoutFiles, NODE_FILE, TOOLS_BIN } from './template.ts';

export interface OfflineCheckoutOptions {
  /** Real seconds are multiplied by this; 1 replays real time, 0 answers at once. Default 0.01. */
  readonly speed?: number;
  /** Probability that a build or run fails for no configuration reason. Default 0. */
  readonly flakeRate?: number;
  /** Seed of the flake draws. Default 0. */
  readonly seed?: number;
  /** Replace a directory that is not empty. */
  readonly force?: boolean;
}

export interface OfflineCheckout {
  readonly root: string;
  readonly modelVersion: string;
  readonly settings: ModelSettings;
}

export class OfflineCheckoutError extends Error {
  override name = 'OfflineCheckoutError';
}

/** The model version a checkout was created with, or undefined when the directory is not one. */
export function checkoutModelVersion(root: string): string | undefined {
  try {
    const info = JSON.parse(readFileSync(join(root, TOOLS_BIN, 'mace_offline_model.json'), 'utf8')) as {
      version?: string;
    };
    return info.version;
  } catch {
    return undefined;
  }
}

/**
 * What produced a checkout's results, for the record of every run that uses it: `offline-model
 * <version>` for an offline checkout (a model, never hardware results), `openpiton` otherwise.
 */
export function checkoutBackend(root: string): string {
  const version = checkoutModelVersion(root);
  return version === undefined ? 'openpiton' : `offline-model ${version}`;
}

/** How fast a checkout replays real time: an offline one's speed setting (or its override), 1 for real OpenPiton. */
export function checkoutSpeed(root: string, env: NodeJS.ProcessEnv = process.env): number {
  return checkoutModelVersion(root) === undefined ? 1 : loadSettings(join(root, TOOLS_BIN), env).speed;
}

function checkSettings(options: OfflineCheckoutOptions): ModelSettings {
  const settings = {
    speed: options.speed ?? DEFAULT_SETTINGS.speed,
    flakeRate: options.flakeRate ?? DEFAULT_SETTINGS.flakeRate,
    seed: options.seed ?? DEFAULT_SETTINGS.seed,
  };
  if (!(settings.speed >= 0) || !Number.isFinite(settings.speed))
    throw new OfflineCheckoutError(`speed must be a number >= 0 (1 replays real time), got ${options.speed}`);
  if (!(settings.flakeRate >= 0 && settings.flakeRate <= 1))
    throw new OfflineCheckoutError(`flake rate must be between 0 and 1, got ${options.flakeRate}`);
  if (!Number.isInteger(settings.seed)) throw new OfflineCheckoutError(`seed must be an integer, got ${options.seed}`);
  return settings;
}

/** Write the settings a checkout's sims reads on every call (git-ignored, so the fingerprint keeps). */
export function writeSettings(root: string, options: OfflineCheckoutOptions): ModelSettings {
  const settings = checkSettings(options);
  writeFileSync(join(root, TOOLS_BIN, SETTINGS_FILE), JSON.stringify(settings, null, 2) + '\n');
  writeFileSync(join(root, TOOLS_BIN, NODE_FILE), `${process.execPath}\n`);
  return settings;
}

/**
 * Create an offline checkout in `dir`. A directory that exists must be empty unless `force` is
 * given, when it is replaced. Returns the checkout's root, model version and settings.
 *
 * @example
 *   const { root } = await initOfflineCheckout('/tmp/piton', { speed: 0 });
 *   // bash -lc 'export PITON_ROOT=/tmp/piton; source $PITON_ROOT/piton/piton_settings.bash; sims ...'
 */
export async function initOfflineCheckout(dir: string, options: OfflineCheckoutOptions = {}): Promise<OfflineCheckout> {
  const root = resolve(dir);
  const settings = checkSettings(options);
  if (existsSync(root) && readdirSync(root).length) {
    if (!options.force)
      throw new OfflineCheckoutError(`${root} is not empty; pass --force to replace it with an offline checkout`);
    rmSync(root, { recursive: true, force: true });
  }
  const version = modelVersion();
  const files = [
    ...checkoutFiles(version),
    { path: `${TOOLS_BIN}/${BUNDLE_FILE}`, content: await bundleSims(), executable: false },
  ];
  for (const file of files) {
    const path = join(root, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.content);
    if ('executable' in file && file.executable) chmodSync(path, 0o755);
  }
  git(root, ['init', '-q']);
  git(root, ['add', '-A']);
  git(root, [
    '-c',
    'user.name=mace offline',
    '-c',
    'user.email=offline@mace.invalid',
    'commit',
    '-q',
    '--no-gpg-sign',
    '-m',
    `Offline OpenPiton checkout (mace offline model ${version})`,
  ]);
  writeSettings(root, settings);
  return { root, modelVersion: version, settings };
}

function git(cwd: string, args: string[]): void {
  try {
    execFileSync('git', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    const command = args.find((a) => /^[a-z]+$/.test(a));
    throw new OfflineCheckoutError(`git ${command} failed in ${cwd}: ${stderr || (error as Error).message}`);
  }
}
