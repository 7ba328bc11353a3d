/**
 * What a job's result depends on besides its definition: the content of the checkouts it may run on.
 * A checkout's identity is the tree its HEAD holds (content, not the commit, so two clones of one
 * revision, or offline checkouts made at different times, are the same), its uncommitted changes and
 * the names of its untracked files, for the checkout and the Ariane submodule. A pool's identity is
 * the set of its distinct checkout identities: adding a checkout like the others re-runs nothing;
 * patching one (say, reverting a fix) re-runs every job.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { BUILD_REPOSITORIES } from '../../mace/openpiton/fingerprint.ts';

async function git(cwd: string, args: readonly string[]): Promise<string> {
  const result = await execa('git', [...args], { cwd, reject: false, stdin: 'ignore', timeout: 60_000 });
  return result.exitCode === 0 ? String(result.stdout) : `(git ${args[0]} failed)`;
}

export async function checkoutIdentity(root: string): Promise<string> {
  const hash = createHash('sha256');
  for (const repository of BUILD_REPOSITORIES) {
    const cwd = repository === '.' ? root : `${root}/${repository}`;
    if (!existsSync(cwd)) continue;
    const [tree, diff, status] = await Promise.all([
      git(cwd, ['rev-parse', 'HEAD^{tree}']),
      git(cwd, ['diff', 'HEAD', '--binary']),
      git(cwd, ['status', '--porcelain', '--untracked-files=all']),
    ]);
    hash.update(`${repository}\0${tree}\0${diff}\0${status}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** The distinct identities of the pool's checkouts, sorted, joined. */
export async function poolIdentity(roots: readonly string[]): Promise<string> {
  const identities = await Promise.all(roots.map(checkoutIdentity));
  return [...new Set(identities)].sort().join('+');
}
