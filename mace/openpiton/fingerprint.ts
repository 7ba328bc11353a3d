/**
 * The source fingerprint a built model is stamped with: what the checkout (and the Ariane submodule,
 * when it is a git checkout of its own) holds, and which Verilator built it. A model is reused only
 * when both its configuration key and this fingerprint match, so an edited checkout or a new Verilator
 * never gets an old model.
 */
import { createHash, type Hash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';

/** Repositories that feed the build, relative to the checkout root. piton/design/aws is left out: its diff is huge. */
export const BUILD_REPOSITORIES = ['.', 'piton/design/chip/tile/ariane'] as const;

/** Untracked files above this size are fingerprinted by size and mtime instead of content. */
export const HASH_CONTENT_LIMIT = 1 << 20;

const GIT_TIMEOUT_MS = 60_000;

/** `label \0 <byte length> \0 data`, so no two sequences of parts hash alike. */
function add(hash: Hash, label: string, data: Buffer | string): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  hash.update(Buffer.from(`${label}\0${bytes.length}\0`, 'utf8'));
  hash.update(bytes);
}

/**
 * A git query's stdout; empty when git fails (as the original adapter did, so a checkout that is not a
 * git repository still gets a stable fingerprint). A failure inside a git checkout is reported, since
 * the fingerprint then cannot see edits there.
 */
async function git(cwd: string, args: readonly string[], onProblem?: (message: string) => void): Promise<Buffer> {
  try {
    const result = await execa('git', [...args], {
      cwd,
      encoding: 'buffer',
      timeout: GIT_TIMEOUT_MS,
      reject: false,
      stdin: 'ignore',
    });
    if (result.exitCode === 0) return Buffer.from(result.stdout as Uint8Array);
    if (existsSync(join(cwd, '.git')))
      onProblem?.(
        `git ${args.join(' ')} failed in ${cwd}: ${Buffer.from(result.stderr as Uint8Array)
          .toString('utf8')
          .trim()}`,
      );
  } catch (error) {
    onProblem?.(`git ${args.join(' ')} could not run in ${cwd}: ${(error as Error).message}`);
  }
  return Buffer.alloc(0);
}

const isSpace = (byte: number) => byte === 0x20 || (byte >= 0x09 && byte <= 0x0d);

/** Without leading and trailing ASCII whitespace, as Python's bytes.strip(). */
function trimmed(bytes: Buffer): Buffer {
  let start = 0;
  let end = bytes.length;
  while (start < end && isSpace(bytes[start]!)) start++;
  while (end > start && isSpace(bytes[end - 1]!)) end--;
  return bytes.subarray(start, end);
}

async function fileDigest(path: string): Promise<Buffer> {
  try {
    const stat = await lstat(path, { bigint: true });
    if (stat.isSymbolicLink())
      return Buffer.concat([Buffer.from('link:'), Buffer.from(await readlink(path, { encoding: 'buffer' }))]);
    if (stat.size > BigInt(HASH_CONTENT_LIMIT)) return Buffer.from(`size=${stat.size} mtime=${stat.mtimeNs}`);
    return createHash('sha256')
      .update(await readFile(path))
      .digest();
  } catch {
    return Buffer.from('unreadable');
  }
}

/**
 * SHA-256 (hex) over the Verilator version text and, for each build repository present, its HEAD, its
 * diff against HEAD (submodules as short commit lines), and each untracked, not-ignored file by
 * content. Takes about 0.1 s on an OpenPiton checkout.
 */
export async function sourceFingerprint(
  root: string,
  verilatorVersionText: string,
  onProblem?: (message: string) => void,
): Promise<string> {
  const hash = createHash('sha256');
  add(hash, 'verilator', verilatorVersionText.trim());
  const repos = BUILD_REPOSITORIES.filter((rel) => rel === '.' || existsSync(join(root, rel, '.git')));
  const answers = await Promise.all(
    repos.map(async (rel) => {
      const cwd = join(root, rel);
      const [rev, diff, untracked] = await Promise.all([
        git(cwd, ['rev-parse', 'HEAD'], onProblem),
        git(cwd, ['diff', 'HEAD', '--submodule=short'], onProblem),
        git(cwd, ['ls-files', '--others', '--exclude-standard', '-z'], onProblem),
      ]);
      const names = untracked.toString('utf8').split('\0').filter(Boolean).sort();
      const digests = await Promise.all(names.map((name) => fileDigest(join(cwd, name))));
      return { rel, rev, diff, names, digests };
    }),
  );
  for (const { rel, rev, diff, names, digests } of answers) {
    add(hash, `${rel}:rev-parse`, trimmed(rev));
    add(hash, `${rel}:diff`, trimmed(diff));
    names.forEach((name, i) => add(hash, `${rel}:untracked:${name}`, digests[i]!));
  }
  return hash.digest('hex');
}
