/**
 * What the adapter hands back: the typed results of a build and a simulation, and the options they
 * take. This is the contract between mace/openpiton and the loop; the Workspace class implements it.
 */
import type { PitonConfig } from './config.ts';

/** Only Verilator is licence-free; the others are accepted by sims and by the types. */
export const SIM_TYPES = ['vlt', 'vcs', 'ncv', 'icv', 'msm', 'riv'] as const;
export type SimType = (typeof SIM_TYPES)[number];

export type Verdict = 'pass' | 'fail' | 'timeout' | 'maxcycles';

/** Characters of stdout, stderr and logs kept in memory; the full text is on disk. */
export const LOG_TAIL_CHARS = 8000;

/** Appended to stderr when the adapter kills a command at its timeout. */
export const TIMEOUT_MARKER = 'sims timed out after';

/** Appended to stderr when a command is stopped through its AbortSignal. */
export const CANCEL_MARKER = 'sims cancelled after';

/** Why the adapter killed a command's process group. */
export type KillReason = 'timeout' | 'cancelled';

export const DEFAULT_BUILD_TIMEOUT_S = 7200;
export const DEFAULT_RUN_TIMEOUT_S = 3600;

export interface BuildOptions {
  readonly simType?: SimType;
  /** Clear the model first and never reuse one. */
  readonly clean?: boolean;
  readonly timeoutS?: number;
  /** Each becomes `-<sim>_build_args=<arg>`. */
  readonly extraBuildArgs?: readonly string[];
  /** Cancels the build: its process group is killed. */
  readonly signal?: AbortSignal;
}

export interface BuildArtifact {
  readonly success: boolean;
  /** -1 on timeout, cancel, launch failure, or a build refused before sims ran. */
  readonly returncode: number;
  readonly config: PitonConfig;
  readonly simType: SimType;
  readonly buildId: string;
  /** `<root>/build/<sys>/<build_id>`; empty when the build never started. */
  readonly modelDir: string;
  /** Empty without a binary. */
  readonly binaryPath: string;
  /** 0 when reused. */
  readonly wallTimeS: number;
  readonly verilatorVersion: string;
  /** configKey(config). */
  readonly cacheKey: string;
  /**
   * Empty on success; a tag such as `verilog_error`, `way_rule`, `budget_exhausted`, `no_model_binary`,
   * or `checkout_busy` (another build held the checkout until the timeout).
   */
  readonly failureReason: string;
  readonly reused: boolean;
  /** The flags sims was given (or would have been). */
  readonly command: readonly string[];
  /** Tails (LOG_TAIL_CHARS); sims prints Verilator's output on stdout. */
  readonly stdout: string;
  readonly stderr: string;
  /** Error lines found in the full output; for `way_rule`, the violations. */
  readonly errors: readonly string[];
  /** Where the full output was written, when sims ran. */
  readonly outputPath: string;
  /** Where the full stderr was written, when sims ran. */
  readonly stderrPath?: string;
  /** Why the adapter stopped sims, when it did. */
  readonly killed?: KillReason | null;
  /** A model was on disk for this configuration but built from other sources, and was cleared. */
  readonly stale?: boolean;
  readonly startedAt: Date;
  readonly finishedAt: Date;
}

export interface RunOptions {
  readonly simType?: SimType;
  /** `-precompiled`: sims looks in Ariane's riscv-tests build. */
  readonly precompiled?: boolean;
  /** `-asm_diag_root=<dir>`: an extra diag directory (how the project's workloads are found). */
  readonly asmDiagRoot?: string;
  /** One hex digit per tile; default one `1` per tile. */
  readonly finishMask?: string;
  readonly rtlTimeout?: number;
  readonly maxCycle?: number;
  readonly extraRunArgs?: readonly string[];
  readonly timeoutS?: number;
  readonly signal?: AbortSignal;
}

export interface StatusDiag {
  readonly name: string;
  readonly status: string;
}

export interface RunResult {
  /** The process was not killed and the verdict is pass. */
  readonly success: boolean;
  readonly returncode: number;
  readonly test: string;
  readonly simType: SimType;
  /** A fresh directory under the model's runs/ for each run. */
  readonly runDir: string;
  readonly verdict: Verdict | null;
  readonly wallTimeS: number;
  /** Simulated finish time from the verdict line. */
  readonly simTime: number | null;
  readonly cycles: number | null;
  readonly execCycles: number | null;
  readonly statusDiag: StatusDiag | null;
  readonly command: readonly string[];
  /** Tails. */
  readonly simLogTail: string;
  readonly statusLog: string;
  readonly fakeUart: string;
  readonly stdout: string;
  readonly stderr: string;
  /** Where the full stdout and stderr of sims were written, when it ran. */
  readonly outputPath?: string;
  readonly stderrPath?: string;
  /** Why the adapter stopped sims, when it did. */
  readonly killed?: KillReason | null;
  readonly startedAt: Date;
  readonly finishedAt: Date;
}
