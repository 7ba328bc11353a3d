/**
 * A sweep claims its checkouts for as long as it runs: a second sweep on the same checkouts would
 * clear the first one's build caches and plant faults under it. The claim is a file in each
 * checkout's build/ naming the holder's pid and host; a claim whose holder is gone is taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../mace/errors.ts';

export const CLAIM_FILE = '.mace_sweep.claim';

/** Whether a process on this host is still running; a process on another host counts as alive (we cannot tell). */
export function processAlive(pid: number, host: string): boolean {
  if (host !== hostname()) return true;
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Claim every checkout, or throw naming the sweep that holds one. Returns the release. */
export function claimCheckouts(roots: readonly string[], sweepId: string): () => void {
  const claimed: string[] = [];
  const release = () => {
    for (const path of claimed.splice(0)) rmSync(path, { force: true });
  };
  for (const root of roots) {
    const path = join(root, 'build', CLAIM_FILE);
    let holder: string[] | undefined;
    try {
      holder = readFileSync(path, 'utf8').trim().split(/\s+/);
    } catch {
      holder = undefined;
    }
    if (holder && Number(holder[0]) !== process.pid && processAlive(Number(holder[0]), holder[1] ?? '')) {
      release();
      throw new InputError(
        `checkout ${root} is in use by sweep ${holder[2] ?? '?'} (pid ${holder[0]} on ${holder[1]}); ` +
          'follow it with `mace suite status`, wait for it, or give this one other checkouts (MACE_HOME, or checkouts.roots)',
      );
    }
    mkdirSync(join(root, 'build'), { recursive: true });
    writeFileSync(path, `${process.pid} ${hostname()} ${sweepId}\n`);
    claimed.push(path);
  }
  return release;
}
