/**
 * Artifacts for builds and simulations that never ran: the loop records these when the run's time
 * budget is gone before a build or simulation would start, or when a run cannot start at all (its
 * build failed). Nothing is executed; the flags are the ones sims would have been given.
 */
import type { BuildArtifact, RunResult, SimType } from './artifacts.ts';
import { buildId, configKey, simsFlags, type PitonConfig } from './config.ts';

export const BUDGET_EXHAUSTED = 'budget_exhausted';
export const BUDGET_EXHAUSTED_BUILD = `${BUDGET_EXHAUSTED}: the run's time budget ran out before this build`;
export const BUDGET_EXHAUSTED_RUN = `${BUDGET_EXHAUSTED}: the run's time budget ran out before this simulation`;

/** A failed build that did not start, with `failureReason` as given and `why` as its stderr. */
export function notStartedBuild(
  config: PitonConfig,
  failureReason: string,
  why: string,
  simType: SimType = 'vlt',
  at: Date = new Date(),
): BuildArtifact {
  const id = buildId(config);
  return {
    success: false,
    returncode: -1,
    config,
    simType,
    buildId: id,
    modelDir: '',
    binaryPath: '',
    wallTimeS: 0,
    verilatorVersion: config.verilator_version,
    cacheKey: configKey(config),
    failureReason,
    reused: false,
    command: [...simsFlags(config), `-build_id=${id}`, `-${simType}_build`],
    stdout: '',
    stderr: why,
    errors: [],
    outputPath: '',
    startedAt: at,
    finishedAt: at,
  };
}

/** The build the loop records when the budget ran out before it could start. */
export const budgetExhaustedBuild = (config: PitonConfig, simType: SimType = 'vlt'): BuildArtifact =>
  notStartedBuild(config, BUDGET_EXHAUSTED, BUDGET_EXHAUSTED_BUILD, simType);

/** A simulation that did not start: no verdict, returncode -1, `why` as its stderr. */
export function notStartedRun(
  config: PitonConfig,
  test: string,
  why: string,
  simType: SimType = 'vlt',
  at: Date = new Date(),
): RunResult {
  return {
    success: false,
    returncode: -1,
    test,
    simType,
    runDir: '',
    verdict: null,
    wallTimeS: 0,
    simTime: null,
    cycles: null,
    execCycles: null,
    statusDiag: null,
    command: [...simsFlags(config), `-build_id=${buildId(config)}`, `-${simType}_run`, test],
    simLogTail: '',
    statusLog: '',
    fakeUart: '',
    stdout: '',
    stderr: why,
    startedAt: at,
    finishedAt: at,
  };
}

/** The simulation the loop records when the budget ran out before it could start. */
export const budgetExhaustedRun = (config: PitonConfig, test: string, simType: SimType = 'vlt'): RunResult =>
  notStartedRun(config, test, BUDGET_EXHAUSTED_RUN, simType);
