/**
 * Provenance of a run: the project's commit and dirty flag, the host, MAKEFLAGS, and each
 * checkout's source fingerprint and Verilator version. A probe that fails records its error
 * instead, so provenance never stops a run.
 */
import { execFileSync } from 'node:child_process';
import { hostname } from 'node:os';
import type { Checkout } from './checkouts.ts';
import { PROJECT_ROOT } from './paths.ts';

export interface Provenance {
  readonly mace_commit: string;
  readonly mace_dirty: boolean | null;
  readonly host: string;
  readonly makeflags: string;
  readonly node: string;
}

let cached: Provenance | undefined;

/** The project's own provenance (computed once per process). */
export function projectProvenance(): Provenance {
  if (!cached) {
    const git = (...args: string[]) => {
      try {
        return execFileSync('git', args, {
          cwd: PROJECT_ROOT,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        }).trim();
      } catch {
        return undefined;
      }
    };
    const commit = git('rev-parse', 'HEAD');
    const status = git('status', '--porcelain', '--untracked-files=no');
    cached = {
      mace_commit: commit ?? 'unknown (not a git checkout)',
      mace_dirty: status === undefined ? null : status.length > 0,
      host: hostname(),
      makeflags: process.env.MAKEFLAGS ?? '',
      node: process.version,
    };
  }
  return cached;
}

/** Fingerprint and Verilator version of each checkout, keyed by root. */
export async function checkoutProvenance(
  checkouts: readonly Checkout[],
): Promise<Record<string, { fingerprint: string; verilator: string }>> {
  const out: Record<string, { fingerprint: string; verilator: string }> = {};
  await Promise.all(
    checkouts.map(async (checkout) => {
      const probe = async (fn: (() => Promise<string>) | undefined) => {
        if (!fn) return 'not available';
        try {
          return (await fn()).split('\n')[0]!.trim();
        } catch (error) {
          return `error: ${error instanceof Error ? error.message : String(error)}`;
        }
      };
      out[checkout.root] = {
        fingerprint: await probe(checkout.sourceFingerprint?.bind(checkout)),
        verilator: await probe(checkout.verilatorVersion?.bind(checkout)),
      };
    }),
  );
  return out;
}
