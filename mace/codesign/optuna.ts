/**
 * Optuna's TPE sampler, driven from TypeScript. An OptunaStudy holds one Python process running
 * optuna-bridge.py (next to this file) and speaks its JSON-lines ask/tell protocol, one request in
 * flight at a time. npm has no usable TPE, so codesign_bayes uses Optuna itself: Debian's
 * python3-optuna under /usr/bin/python3, which scripts/setup.sh installs where it is missing.
 *
 * If the process dies (killed, an exception, optuna missing), the request in flight and every later
 * call reject with one Error naming the bridge, the exit code or signal and the tail of its stderr.
 *
 * @example
 * const study = await OptunaStudy.open({ knobs: [{ name: 'l2_ways', values: [4, 8] }], seed: 1 });
 * try {
 *   const { trial, params } = await study.ask();
 *   await study.tell(trial, await finishTime(params));
 * } finally {
 *   await study.close();
 * }
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The bridge program; resolved from this module so it works from any working directory. */
export const BRIDGE_PATH = fileURLToPath(new URL('./optuna-bridge.py', import.meta.url));

/** Debian's python, which has python3-optuna; the first python3 on PATH may be another (pyenv's). */
export const DEFAULT_PYTHON = '/usr/bin/python3';

/** How long close() waits for the bridge to exit by itself before it kills it. */
const CLOSE_GRACE_MS = 1000;
/** How long to wait for stdio to drain after the process exited (a stray child could hold it). */
const DRAIN_MS = 200;
const STDERR_TAIL_LINES = 12;

export type KnobValue = string | number;

/** One categorical dimension of the search; values keep their types through the bridge. */
export interface OptunaKnob {
  name: string;
  values: readonly KnobValue[];
}

export interface OptunaOpenOptions {
  knobs: readonly OptunaKnob[];
  /** TPESampler's seed: the same seed and the same tells give the same asks. */
  seed: number;
  /** The python to run; default MACE_PYTHON, else /usr/bin/python3. */
  python?: string;
}

export interface OptunaAsk {
  trial: number;
  params: Record<string, KnobValue>;
}

const ErrorReply = z.object({ error: z.string() });
const OkReply = z.object({ ok: z.literal(true) });
const OpenReply = OkReply.extend({ optuna: z.string() });
const AskReply = z.object({
  trial: z.number().int(),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
});

export class OptunaStudy {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #python: string;
  readonly #stderr: string[] = [];
  #pending: { resolve: (reply: unknown) => void; reject: (error: Error) => void } | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #failure: Error | undefined;
  #exited: Promise<void>;
  #closing: Promise<void> | undefined;
  #optunaVersion = '';

  private constructor(python: string) {
    this.#python = python;
    this.#child = spawn(python, [BRIDGE_PATH], { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = createInterface({ input: this.#child.stdout });
    lines.on('line', (line) => this.#onLine(line));
    createInterface({ input: this.#child.stderr }).on('line', (line) => {
      this.#stderr.push(line);
      if (this.#stderr.length > STDERR_TAIL_LINES) this.#stderr.shift();
    });
    // A write to a dead process fails with EPIPE; the exit handler below reports why it died.
    this.#child.stdin.on('error', () => {});
    this.#exited = new Promise((resolve) => {
      this.#child.on('error', (error) => {
        this.#fail(
          new Error(
            `optuna bridge: cannot start ${python} (${error.message}); set MACE_PYTHON or the python option to a python 3 with optuna`,
          ),
        );
        resolve();
      });
      this.#child.on('exit', (code, signal) => {
        // 'close' follows once stdio has drained, so the stderr tail is complete; don't wait forever.
        const done = () => {
          this.#fail(this.#exitError(code, signal));
          resolve();
        };
        const timer = setTimeout(done, DRAIN_MS);
        this.#child.on('close', () => {
          clearTimeout(timer);
          done();
        });
      });
    });
  }

  /** Start the bridge and create the study; rejects if python or optuna is missing or the knobs are bad. */
  static async open(options: OptunaOpenOptions): Promise<OptunaStudy> {
    const study = new OptunaStudy(options.python || process.env.MACE_PYTHON || DEFAULT_PYTHON);
    try {
      const reply = await study.#request({ knobs: options.knobs, seed: options.seed }, OpenReply);
      study.#optunaVersion = reply.optuna;
      return study;
    } catch (error) {
      await study.close();
      throw error;
    }
  }

  /** The Optuna version the bridge imported, e.g. "3.1.0". */
  get optunaVersion(): string {
    return this.#optunaVersion;
  }

  /** The bridge's process id (tests use it to kill the process). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Ask TPE for the next point. */
  async ask(): Promise<OptunaAsk> {
    return this.#request({ op: 'ask' }, AskReply);
  }

  /** Report the objective (lower is better) of an asked trial. */
  async tell(trial: number, value: number): Promise<void> {
    if (!Number.isFinite(value)) throw new Error(`optuna bridge: tell(${trial}) needs a finite value, got ${value}`);
    await this.#request({ op: 'tell', trial, value }, OkReply);
  }

  /** End the study: ask the bridge to exit, and kill it if it has not within a second. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#failure === undefined) {
        this.#child.stdin.end(JSON.stringify({ op: 'close' }) + '\n');
        const timer = setTimeout(() => this.#child.kill('SIGKILL'), CLOSE_GRACE_MS);
        await this.#exited;
        clearTimeout(timer);
      }
      this.#failure = new Error('optuna bridge: the study is closed');
    })();
    return this.#closing;
  }

  /** Send one request once the previous one has its reply, and parse the reply with `schema`. */
  #request<T>(message: object, schema: z.ZodType<T>): Promise<T> {
    const next = this.#queue.then(async () => {
      const reply = await this.#exchange(message);
      const error = ErrorReply.safeParse(reply);
      if (error.success) throw new Error(`optuna bridge: ${error.data.error}`);
      const parsed = schema.safeParse(reply);
      if (!parsed.success) throw new Error(`optuna bridge: unexpected reply ${JSON.stringify(reply).slice(0, 200)}`);
      return parsed.data;
    });
    this.#queue = next.catch(() => {});
    return next;
  }

  #exchange(message: object): Promise<unknown> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#closing !== undefined) return Promise.reject(new Error('optuna bridge: the study is closed'));
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#child.stdin.write(JSON.stringify(message) + '\n');
    });
  }

  #onLine(line: string): void {
    const pending = this.#pending;
    this.#pending = undefined;
    let reply: unknown;
    try {
      reply = JSON.parse(line);
    } catch {
      pending?.reject(new Error(`optuna bridge: a reply that is not JSON: ${JSON.stringify(line.slice(0, 200))}`));
      return this.#desync();
    }
    if (pending === undefined) return this.#desync();
    pending.resolve(reply);
  }

  /** Output out of step with the requests: nothing later can be trusted, so end the process. */
  #desync(): void {
    this.#failure ??= new Error('optuna bridge: its output fell out of step with the requests');
    this.#child.kill('SIGKILL');
  }

  /** Record the first failure and reject the request in flight with it. */
  #fail(error: Error): void {
    this.#failure ??= error;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(this.#failure);
  }

  #exitError(code: number | null, signal: NodeJS.Signals | null): Error {
    const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
    const stderr = this.#stderr.join('\n');
    const tail = stderr === '' ? ' (no stderr)' : `; stderr:\n${stderr}`;
    if (/No module named '?optuna/.test(stderr)) {
      return new Error(
        `optuna bridge: ${this.#python} cannot import optuna; run scripts/setup.sh (it installs Debian's python3-optuna) or set MACE_PYTHON to a python that has it${tail}`,
      );
    }
    return new Error(`optuna bridge (${this.#python} ${BRIDGE_PATH}) ${how}${tail}`);
  }
}
