/**
 * Workspace: the adapter bound to one OpenPiton checkout. It builds a configuration's Verilator model
 * with `sims -vlt_build` (reusing a model only when it was built from this configuration and these
 * sources), simulates a test with `sims -vlt_run` in a fresh run directory, and reads the verdict the
 * way the original adapter did. Real OpenPiton and the offline checkout go through the same code.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  DEFAULT_BUILD_TIMEOUT_S,
  DEFAULT_RUN_TIMEOUT_S,
  LOG_TAIL_CHARS,
  SIM_TYPES,
  TIMEOUT_MARKER,
  type BuildArtifact,
  type BuildOptions,
  type RunOptions,
  type RunResult,
  type SimType,
} from './artifacts.ts';
import {
  ARIANE_WAY_RULE,
  buildId,
  configKey,
  defaultFinishMask,
  simsFlags,
  wayViolations,
  type PitonConfig,
} from './config.ts';
import { fileSize, readTail, scanFile } from './files.ts';
import { sourceFingerprint } from './fingerprint.ts';
import type { CoreKind } from './geometry.ts';
import { CheckoutBusyError, withCheckoutLock } from './lock.ts';
import {
  BuildOutputScanner,
  SimLogScanner,
  cycles,
  execCycles,
  needsNoTiming,
  statusDiag,
  verdictOf,
  type SimLogFacts,
} from './parse.ts';
import { runShell, shellQuote, type ShellResult } from './shell.ts';
import { notStartedBuild } from './unstarted.ts';

/** Written last into a model directory that built: `<config key>\n<source fingerprint>\n`. */
export const BUILD_MARKER = '.mace_build_ok';
export const BUILD_STDOUT = 'mace_build.stdout.log';
export const BUILD_STDERR = 'mace_build.stderr.log';
export const RUN_STDOUT = 'mace_run.stdout.log';
export const RUN_STDERR = 'mace_run.stderr.log';

const VERSION_TIMEOUT_S = 120;

export class CheckoutPathError extends Error {
  override name = 'CheckoutPathError';
}

export interface WorkspaceOptions {
  /** Added to the environment of every command (MAKEFLAGS=-j1 for big builds, RISCV, VERILATOR_ROOT). */
  readonly env?: Readonly<Record<string, string>>;
  /** Told about decisions worth a line in a log: a stale model cleared, a lock waited for. */
  readonly log?: (message: string) => void;
  /** false: run commands in a plain `bash -c` that skips the user's profile (see ShellCommand.loginShell). */
  readonly loginShell?: boolean;
}

export class Workspace {
  /** The checkout root, absolute. */
  readonly root: string;
  private readonly versions = new Map<CoreKind, string>();
  private readonly closing = new AbortController();

  constructor(
    root: string,
    private readonly options: WorkspaceOptions = {},
  ) {
    this.root = resolve(root);
  }

  /** `<root>/build/<sys>/<build_id>`. */
  modelDir(config: PitonConfig): string {
    return join(this.root, 'build', config.sys, buildId(config));
  }

  /** The model's executable: obj_dir/Vcmp_top for manycore, else the one obj_dir/V* without a dot; '' when absent. */
  binaryPath(config: PitonConfig): string {
    const objDir = join(this.modelDir(config), 'obj_dir');
    if (config.sys === 'manycore') {
      const binary = join(objDir, 'Vcmp_top');
      return existsSync(binary) ? binary : '';
    }
    try {
      const names = readdirSync(objDir).filter((n) => n.startsWith('V') && !n.includes('.'));
      const files = names.map((n) => join(objDir, n)).filter((p) => statSync(p).isFile());
      return files.length === 1 ? files[0]! : '';
    } catch {
      return '';
    }
  }

  /** `verilator --version` as the prologue for `core` finds it; remembered once it succeeds. */
  async verilatorVersion(core: CoreKind = 'pico'): Promise<string> {
    const known = this.versions.get(core);
    if (known !== undefined) return known;
    const scratch = join(this.root, 'build', '.mace');
    const result = await this.shell(core, this.root, 'verilator --version', VERSION_TIMEOUT_S, {
      stdoutPath: join(scratch, `verilator-version.${core}.stdout.log`),
      stderrPath: join(scratch, `verilator-version.${core}.stderr.log`),
    });
    const text = result.stdout.trim();
    if (result.returncode === 0) this.versions.set(core, text);
    return text;
  }

  /** See fingerprint.ts. */
  sourceFingerprint(verilatorVersionText: string): Promise<string> {
    return sourceFingerprint(this.root, verilatorVersionText, this.options.log);
  }

  /**
   * Build the configuration's model, or reuse it. Refuses Ariane's way rule before anything runs;
   * takes the checkout's build lock; reuses a model only when its marker holds this configuration's
   * key and the checkout's current fingerprint; clears a stale model; adds `--no-timing` for
   * Verilator 5; and reads the failure reason and error lines from the full output.
   */
  async build(config: PitonConfig, options: BuildOptions = {}): Promise<BuildArtifact> {
    const simType = checkSimType(options.simType ?? 'vlt');
    const violations = wayViolations(config);
    if (violations.length > 0)
      return {
        ...notStartedBuild(config, 'way_rule', `${ARIANE_WAY_RULE}\n${violations.join('\n')}`, simType),
        errors: violations,
      };

    const startedAt = new Date();
    const timeoutS = options.timeoutS ?? DEFAULT_BUILD_TIMEOUT_S;
    const deadline = startedAt.getTime() + timeoutS * 1000;
    const signal = this.signalWith(options.signal);
    try {
      return await withCheckoutLock(
        this.root,
        () => this.buildLocked(config, simType, options, startedAt, deadline, signal),
        { signal, deadline, ...(this.options.log ? { onWait: this.options.log } : {}) },
      );
    } catch (error) {
      if (!(error instanceof CheckoutBusyError)) throw error;
      return { ...notStartedBuild(config, 'checkout_busy', error.message, simType, startedAt), finishedAt: new Date() };
    }
  }

  private async buildLocked(
    config: PitonConfig,
    simType: SimType,
    options: BuildOptions,
    startedAt: Date,
    deadline: number,
    signal: AbortSignal,
  ): Promise<BuildArtifact> {
    const id = buildId(config);
    const key = configKey(config);
    const modelDir = this.modelDir(config);
    const marker = join(modelDir, BUILD_MARKER);
    const versionText = config.verilator_version || (await this.verilatorVersion(config.core));
    const stamp = `${key}\n${await this.sourceFingerprint(versionText)}\n`;

    const common = { config, simType, buildId: id, modelDir, verilatorVersion: versionText, cacheKey: key, startedAt };
    const buildArgs = [...(options.extraBuildArgs ?? [])];
    if (simType === 'vlt' && needsNoTiming(versionText) && !buildArgs.some((arg) => arg.includes('timing')))
      buildArgs.push('--no-timing');
    const command = [
      ...simsFlags(config),
      `-build_id=${id}`,
      `-${simType}_build`,
      ...buildArgs.map((arg) => `-${simType}_build_args=${arg}`),
    ];

    const onDisk = existsSync(marker) && this.binaryPath(config) !== '';
    const markerText = onDisk ? await readFile(marker, 'utf8').catch(() => '') : '';
    if (!options.clean && onDisk && markerText === stamp)
      return {
        ...common,
        success: true,
        returncode: 0,
        binaryPath: this.binaryPath(config),
        wallTimeS: 0,
        failureReason: '',
        reused: true,
        command,
        stdout: '',
        stderr: '',
        errors: [],
        outputPath: '',
        finishedAt: new Date(),
      };
    const stale = onDisk && markerText !== stamp;
    if (stale) this.options.log?.(`${modelDir}: the checkout or Verilator changed since it was built; rebuilding`);
    if (options.clean || stale) {
      await rm(join(modelDir, 'obj_dir'), { recursive: true, force: true });
      await rm(marker, { force: true });
    }

    await mkdir(modelDir, { recursive: true });
    const result = await this.shell(
      config.core,
      join(this.root, 'build'),
      ['sims', ...command].map(shellQuote).join(' '),
      Math.max(0, (deadline - Date.now()) / 1000),
      { stdoutPath: join(modelDir, BUILD_STDOUT), stderrPath: join(modelDir, BUILD_STDERR), signal },
    );
    const binaryPath = this.binaryPath(config);
    const success = result.returncode === 0 && binaryPath !== '';
    let failureReason = '';
    let errors: readonly string[] = [];
    if (!success) {
      const scanner = new BuildOutputScanner();
      await scanFile(result.stdoutPath, scanner);
      await scanFile(result.stderrPath, scanner);
      const facts = scanner.facts();
      failureReason = facts.failureReason || 'no_model_binary';
      errors = facts.errors;
    } else {
      await writeFile(marker, stamp);
    }
    return {
      ...common,
      success,
      returncode: result.returncode,
      binaryPath,
      wallTimeS: result.wallTimeS,
      failureReason,
      reused: false,
      stale,
      command,
      stdout: result.stdout,
      stderr: result.stderr,
      errors,
      outputPath: result.stdoutPath,
      stderrPath: result.stderrPath,
      killed: result.killed,
      finishedAt: new Date(),
    };
  }

  /**
   * Simulate `test` on the configuration's model in a fresh run directory. The verdict comes from the
   * full sim.log (sims's stdout when there is none), failing closed; a killed simulation without a
   * verdict timed out; success needs a verdict of pass from a simulation that was not killed.
   */
  async run(config: PitonConfig, test: string, options: RunOptions = {}): Promise<RunResult> {
    const simType = checkSimType(options.simType ?? 'vlt');
    const startedAt = new Date();
    const runDir = join(
      this.modelDir(config),
      'runs',
      `${test.replaceAll('/', '_')}-${startedAt.getTime()}-${randomBytes(4).toString('hex')}`,
    );
    await mkdir(runDir, { recursive: true });
    const command = runArguments(config, test, simType, options);
    const result = await this.shell(
      config.core,
      runDir,
      ['sims', ...command].map(shellQuote).join(' '),
      options.timeoutS ?? DEFAULT_RUN_TIMEOUT_S,
      {
        stdoutPath: join(runDir, RUN_STDOUT),
        stderrPath: join(runDir, RUN_STDERR),
        signal: this.signalWith(options.signal),
      },
    );

    const simLogPath = join(runDir, 'sim.log');
    const logPath = (await fileSize(simLogPath)) > 0 ? simLogPath : result.stdoutPath;
    const scanner = new SimLogScanner();
    await scanFile(logPath, scanner);
    const facts: SimLogFacts = scanner.facts();
    let verdict = verdictOf(facts);
    if (verdict === null && result.returncode === -1 && result.stderr.includes(TIMEOUT_MARKER)) verdict = 'timeout';
    const statusLog = await readTail(join(runDir, 'status.log'), LOG_TAIL_CHARS);
    return {
      success: result.killed === null && result.returncode !== -1 && verdict === 'pass',
      returncode: result.returncode,
      test,
      simType,
      runDir,
      verdict,
      wallTimeS: result.wallTimeS,
      simTime: facts.simTime,
      cycles: cycles(statusLog),
      execCycles: execCycles(statusLog),
      statusDiag: statusDiag(statusLog),
      command,
      simLogTail: await readTail(logPath, LOG_TAIL_CHARS),
      statusLog,
      fakeUart: await readTail(join(runDir, 'fake_uart.log'), LOG_TAIL_CHARS),
      stdout: result.stdout,
      stderr: result.stderr,
      outputPath: result.stdoutPath,
      stderrPath: result.stderrPath,
      killed: result.killed,
      startedAt,
      finishedAt: new Date(),
    };
  }

  /** Remove the whole model directory (`sims -clean` removes only VCS output). Waits for the build lock. */
  async clean(config: PitonConfig): Promise<void> {
    const modelDir = this.modelDir(config);
    await withCheckoutLock(this.root, () => rm(modelDir, { recursive: true, force: true }), {
      signal: this.closing.signal,
    });
  }

  /** A text file of the checkout, by a path relative to its root; refuses paths that leave it. */
  async readFile(relPath: string): Promise<string> {
    return readFile(await this.insideCheckout(relPath), 'utf8');
  }

  /** Write a text file of the checkout (creating its folders), by a path relative to its root. */
  async writeFile(relPath: string, content: string): Promise<void> {
    const path = await this.insideCheckout(relPath);
    await mkdir(dirname(path), { recursive: true });
    // The folders just made may not lead outside either; check again before writing.
    await this.insideCheckout(relPath);
    await writeFile(path, content);
  }

  /** Stop every command this workspace is running and refuse new ones. */
  close(): void {
    this.closing.abort();
  }

  private async insideCheckout(relPath: string): Promise<string> {
    if (!relPath || isAbsolute(relPath))
      throw new CheckoutPathError(`${JSON.stringify(relPath)}: give a path relative to the checkout root ${this.root}`);
    const path = resolve(this.root, relPath);
    const within = (base: string, target: string) => {
      const rel = relative(base, target);
      return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
    };
    if (!within(this.root, path))
      throw new CheckoutPathError(`${JSON.stringify(relPath)} leads outside the checkout ${this.root}`);
    // Follow symbolic links on the part of the path that exists: none may lead out either.
    const realRoot = await realpath(this.root);
    let existing = path;
    while (!existsSync(existing) && existing !== this.root) existing = dirname(existing);
    const real = await realpath(existing);
    if (!within(realRoot, real))
      throw new CheckoutPathError(
        `${JSON.stringify(relPath)} leads outside the checkout ${this.root} through a symbolic link`,
      );
    return path;
  }

  private signalWith(signal: AbortSignal | undefined): AbortSignal {
    if (this.closing.signal.aborted) throw new Error(`workspace for ${this.root} is closed`);
    return signal ? AbortSignal.any([signal, this.closing.signal]) : this.closing.signal;
  }

  private shell(
    core: CoreKind,
    cwd: string,
    command: string,
    timeoutS: number,
    io: { stdoutPath: string; stderrPath: string; signal?: AbortSignal },
  ): Promise<ShellResult> {
    return runShell({
      root: this.root,
      core,
      cwd,
      command,
      timeoutS,
      signal: io.signal ?? this.signalWith(undefined),
      stdoutPath: io.stdoutPath,
      stderrPath: io.stderrPath,
      ...(this.options.env ? { env: this.options.env } : {}),
      ...(this.options.loginShell === false ? { loginShell: false } : {}),
    });
  }
}

function checkSimType(simType: string): SimType {
  if (!(SIM_TYPES as readonly string[]).includes(simType))
    throw new RangeError(`simType must be one of ${SIM_TYPES.join(', ')}; got ${JSON.stringify(simType)}`);
  return simType as SimType;
}

/**
 * `sims` arguments for a simulation: the configuration's flags and build id; for manycore then
 * -precompiled, -asm_diag_root, -finish_mask (default one `1` per tile), -rtl_timeout and -max_cycle
 * when given; the extra run arguments; `-<sim>_run`; and for manycore the test last.
 */
export function runArguments(config: PitonConfig, test: string, simType: SimType, options: RunOptions = {}): string[] {
  const args = [...simsFlags(config), `-build_id=${buildId(config)}`];
  const manycore = config.sys === 'manycore';
  if (manycore) {
    if (options.precompiled) args.push('-precompiled');
    if (options.asmDiagRoot) args.push(`-asm_diag_root=${options.asmDiagRoot}`);
    const mask = options.finishMask ?? defaultFinishMask(config);
    if (mask) args.push(`-finish_mask=${mask}`);
    if (options.rtlTimeout !== undefined) args.push(`-rtl_timeout=${options.rtlTimeout}`);
    if (options.maxCycle !== undefined) args.push(`-max_cycle=${options.maxCycle}`);
  }
  args.push(...(options.extraRunArgs ?? []), `-${simType}_run`);
  if (manycore) args.push(test);
  return args;
}
