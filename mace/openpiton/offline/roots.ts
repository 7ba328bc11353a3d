/**
 * The offline checkouts the loop uses when it is given no --piton-root: `count` of them under
 * `${MACE_HOME:-<cwd>/.mace}/offline/checkout-<i>`, created on first use, re-created when their
 * model version is out of date, and safe to ask for from several processes at once.
 */
import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { modelVersion } from './bundle.ts';
import { checkoutModelVersion, initOfflineCheckout, writeSettings, type OfflineCheckoutOptions } from './checkout.ts';
import { loadSettings } from './sims/runtime.ts';
import { TOOLS_BIN } from './template.ts';

export interface OfflineRootsOptions extends Omit<OfflineCheckoutOptions, 'force'> {
  /** Where MACE keeps its state; default $MACE_HOME, else <cwd>/.mace. */
  readonly home?: string;
  /** A lock older than this is taken over (its holder died). Default 10 minutes. */
  readonly staleLockMs?: number;
}

/** `${MACE_HOME:-<cwd>/.mace}` (or the given home). */
export function maceHome(home?: string): string {
  return resolve(home ?? process.env.MACE_HOME ?? join(process.cwd(), '.mace'));
}

/**
 * Absolute roots of `count` offline checkouts (checkout-0 … checkout-<count-1>), each current.
 * Settings given in `options` are written to every checkout; otherwise each keeps its own.
 *
 * @example
 *   const roots = await defaultOfflineRoots(2);   // ~/.mace/offline/checkout-0, checkout-1
 */
export async function defaultOfflineRoots(count: number, options: OfflineRootsOptions = {}): Promise<string[]> {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`count must be a positive integer, got ${count}`);
  const base = join(maceHome(options.home), 'offline');
  mkdirSync(base, { recursive: true });
  const roots: string[] = [];
  for (let i = 0; i < count; i++) roots.push(await ensureCheckout(join(base, `checkout-${i}`), options));
  return roots;
}

const settingsGiven = (o: OfflineRootsOptions) =>
  o.speed !== undefined || o.flakeRate !== undefined || o.seed !== undefined;

async function ensureCheckout(root: string, options: OfflineRootsOptions): Promise<string> {
  const current = modelVersion();
  if (checkoutModelVersion(root) !== current) {
    await withDirLock(`${root}.lock`, options.staleLockMs ?? 10 * 60_000, async () => {
      if (checkoutModelVersion(root) === current) return;
      // Build beside it and swap it in with renames, so no process ever sees half a checkout.
      const tag = `${process.pid}-${Date.now().toString(36)}`;
      const fresh = `${root}.new-${tag}`;
      // A re-created checkout keeps the settings of the one it replaces unless new ones are given.
      const kept = settingsGiven(options) ? {} : loadSettings(join(root, TOOLS_BIN), {});
      await initOfflineCheckout(fresh, { ...kept, ...options });
      const old = `${root}.old-${tag}`;
      try {
        renameSync(root, old);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      renameSync(fresh, root);
      rmSync(old, { recursive: true, force: true });
    });
  } else if (settingsGiven(options)) {
    writeSettings(root, options);
  }
  return root;
}

/** Run `fn` holding a directory lock (mkdir is atomic); wait for another holder, take over a stale one. */
async function withDirLock(lock: string, staleMs: number, fn: () => Promise<void>): Promise<void> {
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = lockAge(lock);
      if (age !== undefined && age > staleMs) rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function lockAge(lock: string): number | undefined {
  try {
    return Date.now() - statSync(lock).mtimeMs;
  } catch {
    return undefined;
  }
}
