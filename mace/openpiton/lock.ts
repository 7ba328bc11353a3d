/**
 * One build per checkout at a time. OpenPiton's build writes generated `.tmp.v` files into the source
 * tree, so two builds in one checkout corrupt each other. Builds in this process queue per checkout;
 * across processes a lock file in the checkout's build/ directory names its holder's pid, and a lock
 * whose holder has died is taken over.
 */
import { open, readFile, unlink, mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const LOCK_FILE = '.mace_build.lock';

export class CheckoutBusyError extends Error {
  override name = 'CheckoutBusyError';
}

export interface LockOptions {
  readonly signal?: AbortSignal;
  /** Give up waiting at this time (ms since the epoch). */
  readonly deadline?: number;
  readonly pollMs?: number;
  /** Told once when the build has to wait for another holder. */
  readonly onWait?: (message: string) => void;
}

/** The tail of each checkout's in-process queue. */
const queues = new Map<string, Promise<void>>();

export const lockPath = (root: string): string => join(resolve(root), 'build', LOCK_FILE);

/**
 * Run `fn` while holding the checkout's build lock: after every earlier build of this process in the
 * same checkout, and while no other live process holds the lock file. Throws CheckoutBusyError when
 * the deadline passes or the signal aborts first.
 */
export async function withCheckoutLock<T>(root: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const key = resolve(root);
  const previous = queues.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((done) => (release = done));
  const tail = previous.then(() => mine);
  queues.set(key, tail);
  try {
    try {
      await waitFor(previous, options, `an earlier build in this process is still using ${key}`);
    } catch (error) {
      // Keep the queue's order: whoever follows still waits for the build ahead of us.
      void previous.then(release);
      throw error;
    }
    const path = lockPath(key);
    await acquireFile(path, options);
    try {
      return await fn();
    } finally {
      await releaseFile(path);
    }
  } finally {
    release();
    if (queues.get(key) === tail) queues.delete(key);
  }
}

async function waitFor(promise: Promise<void>, options: LockOptions, why: string): Promise<void> {
  let settled = false;
  void promise.then(() => (settled = true));
  for (;;) {
    await Promise.race([promise, sleep(options.pollMs ?? 200)]);
    if (settled) return;
    checkStillWaiting(options, why);
  }
}

function checkStillWaiting(options: LockOptions, why: string): void {
  if (options.signal?.aborted) throw new CheckoutBusyError(`cancelled while waiting: ${why}`);
  if (options.deadline !== undefined && Date.now() >= options.deadline)
    throw new CheckoutBusyError(`gave up waiting: ${why}`);
}

const stamp = () => `${process.pid} ${hostname()} ${new Date().toISOString()}\n`;

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly text: string;
}

async function readHolder(path: string): Promise<Holder | null> {
  try {
    const text = await readFile(path, 'utf8');
    const [pid, host] = text.trim().split(/\s+/);
    return { pid: Number(pid), host: host ?? '', text };
  } catch {
    return null;
  }
}

function isAlive(holder: Holder): boolean {
  if (holder.host !== hostname()) return true; // another machine's process: we cannot tell, so wait
  if (!Number.isInteger(holder.pid) || holder.pid <= 0) return false;
  if (holder.pid === process.pid) return false; // our own leftover: this process's queue is the real guard
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function acquireFile(path: string, options: LockOptions): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  let told = false;
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(stamp());
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(path);
    if (holder && !isAlive(holder)) {
      // Take over a dead holder's lock, unless it changed hands while we looked.
      const again = await readHolder(path);
      if (again?.text === holder.text) await unlink(path).catch(() => undefined);
      continue;
    }
    const why = `${path} is held by ${holder ? `pid ${holder.pid} on ${holder.host}` : 'another build'}`;
    checkStillWaiting(options, why);
    if (!told) options.onWait?.(`waiting: ${why}`);
    told = true;
    await sleep(options.pollMs ?? 500);
  }
}

async function releaseFile(path: string): Promise<void> {
  const holder = await readHolder(path);
  if (holder && holder.pid === process.pid && holder.host === hostname()) await unlink(path).catch(() => undefined);
}
