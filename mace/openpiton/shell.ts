/**
 * The one way the adapter runs a command in an OpenPiton checkout: `bash -lc '<prologue> cd <cwd> &&
 * <command>'`, in its own process group, with its full stdout and stderr streamed to files and only
 * their tails kept in memory. On a timeout or a cancel the whole group is killed with SIGKILL (sims
 * starts make, Verilator, g++ and the simulator under it), so nothing is left running.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { constants } from 'node:os';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { execa } from 'execa';
import { CANCEL_MARKER, LOG_TAIL_CHARS, TIMEOUT_MARKER, type KillReason } from './artifacts.ts';
import type { CoreKind } from './geometry.ts';

/** Quote one word for bash as Python's shlex.quote does. */
export function shellQuote(word: string): string {
  if (word === '') return "''";
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}

/**
 * The environment every command starts from, ending with ` && `. PITON_ROOT comes first because
 * piton_settings.bash does not set it; sourcing that file puts `$DV_ROOT/tools/bin` (and so `sims`) on
 * PATH. Ariane also needs ARIANE_ROOT with its trailing slash, RISCV (default
 * `$HOME/scratch/riscv_install`), its bundled Verilator 4.014 when there is one, and the RISC-V
 * toolchain ahead of a distribution cross compiler that lacks newlib. A VERILATOR_ROOT, wherever it
 * came from, puts its Verilator first on PATH for every core.
 */
export function prologue(root: string, core: CoreKind): string {
  const ariane = core === 'ariane';
  const steps = [`export PITON_ROOT=${shellQuote(root)}`];
  if (ariane)
    steps.push(
      'export ARIANE_ROOT="$PITON_ROOT/piton/design/chip/tile/ariane/"',
      'export RISCV="${RISCV:-$HOME/scratch/riscv_install}"',
      'if [ -z "${VERILATOR_ROOT:-}" ] && [ -x "$ARIANE_ROOT/tmp/verilator-4.014/bin/verilator" ]; then export VERILATOR_ROOT="$ARIANE_ROOT/tmp/verilator-4.014/"; fi',
      'export LIBRARY_PATH="$RISCV/lib"',
      'export LD_LIBRARY_PATH="$RISCV/lib:$LD_LIBRARY_PATH"',
    );
  steps.push('source "$PITON_ROOT/piton/piton_settings.bash"');
  if (ariane) steps.push('export PATH="$RISCV/bin:$PATH"');
  steps.push('if [ -n "${VERILATOR_ROOT:-}" ]; then export PATH="$VERILATOR_ROOT/bin:$PATH"; fi');
  return `${steps.join(' && ')} && `;
}

/** The full text bash runs: the prologue, then `cd <cwd> && <command>`. */
export const shellScript = (root: string, core: CoreKind, cwd: string, command: string): string =>
  `${prologue(root, core)}cd ${shellQuote(cwd)} && ${command}`;

export interface ShellCommand {
  readonly root: string;
  readonly core: CoreKind;
  readonly cwd: string;
  /** Already quoted for bash. */
  readonly command: string;
  readonly timeoutS: number;
  readonly signal?: AbortSignal;
  /** Added to this process's environment (MAKEFLAGS, RISCV, VERILATOR_ROOT, ...). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Run bash as a login shell (the default, as the original did), so the user's profile sets up
   * module systems and PATH. A checkout that needs nothing from the profile can skip it: on a
   * machine whose profile starts pyenv or conda, that costs seconds per command.
   */
  readonly loginShell?: boolean;
  /** Where the full stdout and stderr go; their directories are created. */
  readonly stdoutPath: string;
  readonly stderrPath: string;
}

export interface ShellResult {
  /** The exit code; -1 when killed, when killed by a signal, or when bash could not be started. */
  readonly returncode: number;
  /** The last LOG_TAIL_CHARS characters; stderr ends with the timeout or cancel marker when killed. */
  readonly stdout: string;
  readonly stderr: string;
  readonly killed: KillReason | null;
  readonly wallTimeS: number;
  readonly stdoutPath: string;
  readonly stderrPath: string;
}

/** Keeps the last `limit` characters of a growing text without holding the rest. */
export class TailBuffer {
  private parts: string[] = [];
  private length = 0;

  constructor(private readonly limit = LOG_TAIL_CHARS) {}

  push(text: string): void {
    if (!text) return;
    this.parts.push(text);
    this.length += text.length;
    if (this.length > 2 * this.limit) this.compact();
  }

  text(): string {
    this.compact();
    return this.parts[0] ?? '';
  }

  private compact(): void {
    const joined = this.parts.join('');
    const kept = joined.length > this.limit ? joined.slice(-this.limit) : joined;
    this.parts = kept ? [kept] : [];
    this.length = kept.length;
  }
}

/** Process groups still running, killed if this process exits first. */
const liveGroups = new Set<number>();
process.on('exit', () => {
  for (const pgid of liveGroups) killGroup(pgid);
});

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Copies a stream to a file (pausing while the file catches up) and keeps its tail. */
function drain(stream: Readable | null | undefined, file: WriteStream, tail: TailBuffer): Promise<void> {
  return new Promise((resolve) => {
    if (!stream) return resolve();
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer) => {
      tail.push(decoder.write(chunk));
      if (!file.write(chunk)) {
        stream.pause();
        file.once('drain', () => stream.resume());
      }
    });
    stream.on('end', () => {
      tail.push(decoder.end());
      resolve();
    });
    stream.on('error', () => resolve());
  });
}

const closeFile = (file: WriteStream) => new Promise<void>((resolve) => file.end(resolve));

/** Run one command in the checkout; never throws for the command's own failures. */
export async function runShell(spec: ShellCommand): Promise<ShellResult> {
  await Promise.all([
    mkdir(dirname(spec.stdoutPath), { recursive: true }),
    mkdir(dirname(spec.stderrPath), { recursive: true }),
  ]);
  const outFile = createWriteStream(spec.stdoutPath);
  const errFile = createWriteStream(spec.stderrPath);
  const outTail = new TailBuffer();
  const errTail = new TailBuffer();
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  let killed: KillReason | null = null;

  const finish = async (returncode: number, note = ''): Promise<ShellResult> => {
    if (note) {
      errTail.push(note);
      errFile.write(note);
    }
    await Promise.all([closeFile(outFile), closeFile(errFile)]);
    return {
      returncode,
      stdout: outTail.text(),
      stderr: errTail.text(),
      killed,
      wallTimeS: elapsed(),
      stdoutPath: spec.stdoutPath,
      stderrPath: spec.stderrPath,
    };
  };

  if (spec.signal?.aborted) {
    killed = 'cancelled';
    return finish(-1, `\n${CANCEL_MARKER} 0s (cancelled before it started)`);
  }

  const child = execa('bash', [spec.loginShell === false ? '-c' : '-lc', shellScript(spec.root, spec.core, spec.cwd, spec.command)], {
    stdin: 'ignore',
    detached: true,
    reject: false,
    buffer: false,
    env: spec.env ? { ...spec.env } : {},
    extendEnv: true,
  });
  const pgid = child.pid;
  if (pgid === undefined) {
    const result = await child;
    return finish(-1, `could not start bash: ${result.message ?? 'unknown error'}`);
  }
  liveGroups.add(pgid);

  const stop = (reason: KillReason) => {
    if (killed) return;
    killed = reason;
    killGroup(pgid);
  };
  const timer = setTimeout(() => stop('timeout'), Math.max(0, spec.timeoutS) * 1000);
  const onAbort = () => stop('cancelled');
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  // When bash exits, whatever it left behind in its group goes too, so nothing holds the pipes open.
  child.on('exit', () => killGroup(pgid));

  const [result] = await Promise.all([
    child,
    drain(child.stdout, outFile, outTail),
    drain(child.stderr, errFile, errTail),
  ]);
  clearTimeout(timer);
  spec.signal?.removeEventListener('abort', onAbort);
  liveGroups.delete(pgid);

  if (killed === 'timeout') return finish(-1, `\n${TIMEOUT_MARKER} ${Number(spec.timeoutS.toFixed(1))}s`);
  if (killed === 'cancelled') return finish(-1, `\n${CANCEL_MARKER} ${elapsed().toFixed(1)}s`);
  return finish(typeof result.exitCode === 'number' ? result.exitCode : signalReturncode(result.signal));
}

/** A process killed by a signal gets minus the signal's number, as Python's subprocess reports it. */
function signalReturncode(signal: string | undefined): number {
  const number = signal ? constants.signals[signal as NodeJS.Signals] : undefined;
  return number ? -number : -1;
}
