/**
 * The checkouts a sweep (or `mace run`) uses: OpenPiton roots, or offline checkouts made on first
 * use; how sims is run in them (login shell, extra environment); undoing what a crash left in them;
 * and the empty build cache each job starts from.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { openCheckouts, type Checkout } from '../../mace/checkouts.ts';
import { InputError } from '../../mace/errors.ts';
import { BUILD_ID_PREFIX } from '../../mace/openpiton/config.ts';
import { restorePending } from '../../mace/openpiton/edits.ts';
import type { CoreKind } from '../../mace/openpiton/geometry.ts';
import { defaultOfflineRoots } from '../../mace/openpiton/offline/index.ts';
import type { WorkspaceOptions } from '../../mace/openpiton/workspace.ts';
import { restoreSourceFaults } from '../faults/source.ts';
import type { CheckoutsSection } from '../suite/schema.ts';

export interface CheckoutSetup {
  readonly roots: readonly string[];
  /** How many checkouts one multi-checkout job takes. */
  readonly perJob: number;
  readonly loginShell: boolean;
  readonly env: Readonly<Record<string, string>>;
  /** Environment for one job: the offline model draws its flakes from the job's seed. */
  readonly jobEnv: (seed: number) => Readonly<Record<string, string>>;
  /** What the checkouts are, for messages: `2 offline checkouts` or the roots. */
  readonly description: string;
}

const expandHome = (path: string) => (path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path);

/** Resolve the checkouts section; relative roots are relative to `baseDir` (the suite file's folder, or the cwd). */
export async function resolveCheckouts(section: CheckoutsSection, baseDir: string): Promise<CheckoutSetup> {
  let roots: string[];
  let description: string;
  let jobEnv: CheckoutSetup['jobEnv'] = () => ({});
  if (section.roots) {
    roots = section.roots.map((root) => resolve(baseDir, expandHome(root)));
    roots.forEach((root, i) => {
      if (!existsSync(join(root, 'piton')))
        throw new InputError(
          `checkouts.roots[${i}]: ${root} is not an OpenPiton checkout (it has no piton/ folder); run \`mace doctor --piton-root ${root}\``,
        );
    });
    if (new Set(roots).size !== roots.length) throw new InputError('checkouts.roots names one checkout twice');
    description = roots.join(', ');
  } else {
    roots = await defaultOfflineRoots(section.offline!, { speed: section.speed, flakeRate: section.flake_rate });
    description = `${roots.length} offline checkout${roots.length === 1 ? '' : 's'} (${roots[0]}${roots.length > 1 ? ', …' : ''})`;
    jobEnv = (seed) => ({ MACE_OFFLINE_SEED: String(seed) });
  }
  return {
    roots,
    perJob: Math.min(section.per_job ?? roots.length, roots.length),
    loginShell: section.login_shell,
    env: section.env,
    jobEnv,
    description,
  };
}

export function workspaceOptions(setup: CheckoutSetup, seed?: number): WorkspaceOptions {
  return {
    loginShell: setup.loginShell,
    env: { ...setup.env, ...(seed === undefined ? {} : setup.jobEnv(seed)) },
  };
}

/** Open checkouts for one core, undoing any RTL edit a crash left applied. */
export function openFor(setup: CheckoutSetup, roots: readonly string[], core: CoreKind, seed?: number): Checkout[] {
  return openCheckouts(roots, core, workspaceOptions(setup, seed));
}

/** Undo what a killed process left in each checkout: a planted source fault, RTL edits. */
export function recoverCheckouts(roots: readonly string[]): void {
  for (const root of roots) {
    restoreSourceFaults(root);
    restorePending(root);
  }
}

/** Remove the checkout's built models (build/manycore/mace_*), so a job starts from an empty build cache. */
export function clearBuildCache(root: string): number {
  const dir = join(root, 'build', 'manycore');
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (name.startsWith(BUILD_ID_PREFIX) && statSync(path).isDirectory()) {
      rmSync(path, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}
