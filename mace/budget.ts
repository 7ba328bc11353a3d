/**
 * The run's clock: how much wall time is left, the timeout each build and simulation gets (the
 * smaller of its default and the time left), and the failed results recorded for work that would
 * start after the budget ran out.
 */
import {
  DEFAULT_BUILD_TIMEOUT_S,
  DEFAULT_RUN_TIMEOUT_S,
  type BuildArtifact,
  type RunResult,
} from './openpiton/artifacts.ts';
import { buildId, configKey, simsFlags, type PitonConfig } from './openpiton/config.ts';

export class Deadline {
  constructor(
    /** Epoch ms when the budget runs out. */
    readonly at: number,
    private readonly now: () => number = Date.now,
  ) {}

  static after(seconds: number, now: () => number = Date.now): Deadline {
    return new Deadline(now() + seconds * 1000, now);
  }

  /** Seconds left, never negative. */
  leftS(): number {
    return Math.max(0, (this.at - this.now()) / 1000);
  }

  passed(): boolean {
    return this.now() >= this.at;
  }

  buildTimeoutS(): number {
    return Math.min(DEFAULT_BUILD_TIMEOUT_S, this.leftS());
  }

  runTimeoutS(): number {
    return Math.min(DEFAULT_RUN_TIMEOUT_S, this.leftS());
  }
}

export const BUDGET_EXHAUSTED = 'budget_exhausted';

/** The build a task records when its budget ran out before the build could start. */
export function budgetExhaustedBuild(config: PitonConfig): BuildArtifact {
  const now = new Date();
  return {
    success: false,
    returncode: -1,
    config,
    simType: 'vlt',
    buildId: buildId(config),
    modelDir: '',
    binaryPath: '',
    wallTimeS: 0,
    verilatorVersion: '',
    cacheKey: configKey(config),
    failureReason: BUDGET_EXHAUSTED,
    reused: false,
    command: simsFlags(config),
    stdout: '',
    stderr: "budget_exhausted: the run's time budget ran out before this build",
    errors: [],
    outputPath: '',
    startedAt: now,
    finishedAt: now,
  };
}

/** The simulation a task records when its budget ran out before the run could start. */
export function budgetExhaustedRun(test: string): RunResult {
  const now = new Date();
  return {
    success: false,
    returncode: -1,
    test,
    simType: 'vlt',
    runDir: '',
    verdict: null,
    wallTimeS: 0,
    simTime: null,
    cycles: null,
    execCycles: null,
    statusDiag: null,
    command: [],
    simLogTail: '',
    statusLog: '',
    fakeUart: '',
    stdout: '',
    stderr: "budget_exhausted: the run's time budget ran out before this simulation",
    startedAt: now,
    finishedAt: now,
  };
}
