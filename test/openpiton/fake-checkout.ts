/**
 * A fake OpenPiton checkout for process tests: a git repository holding piton/piton_settings.bash and
 * stand-in `sims` and `verilator` scripts (test/fixtures/openpiton/fake-checkout). It mocks only the
 * edge the adapter talks to, the sims executable, so failures a real build cannot be made to produce
 * on demand (hangs, huge output, a given verdict) can be.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Workspace } from '../../mace/openpiton/workspace.ts';
import { ROOT, tempDir } from '../helpers.ts';

export const FAKE_CHECKOUT = join(ROOT, 'test/fixtures/openpiton/fake-checkout');

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'pipe' });

/**
 * An empty HOME for the login shell: `bash -l` otherwise reads ~/.profile, which on this machine runs
 * `pyenv init` and its rehash lock, taking seconds whenever other shells start at the same time.
 */
let quietHome: string | undefined;
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  quietHome ??= tempDir('mace-home-');
  return { HOME: quietHome, ...extra };
}

/** A Workspace on a fake checkout, with the test environment plus `env`. */
export const fakeWorkspace = (root: string, env: Record<string, string> = {}): Workspace =>
  new Workspace(root, { env: testEnv(env) });

/** A fresh copy of the fake checkout, committed, so its source fingerprint is stable. */
export function fakeCheckout(): string {
  const root = join(tempDir('mace-fake-piton-'), 'openpiton');
  cpSync(FAKE_CHECKOUT, root, { recursive: true });
  execFileSync('bash', ['-c', 'printf "build/*\\n*.log\\n" > .gitignore'], { cwd: root });
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'fake checkout');
  return root;
}

export function commitAll(root: string): void {
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'change');
}

/** The argument lines the fake sims recorded, one per call. */
export function simsCalls(root: string): string[] {
  const path = join(root, 'sims_calls.log');
  return existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n') : [];
}

/** What the fake sims saw in its environment on its last call. */
export function simsEnv(root: string): Record<string, string> {
  const text = readFileSync(join(root, 'sims_env.log'), 'utf8');
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/** True while a process exists and is not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
