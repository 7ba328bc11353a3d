/** How the loop's results become store rows. */
import { failureEvidence } from './evidence.ts';
import type { TaskResult } from './integrator.ts';
import { simsFlags } from './openpiton/config.ts';
import type { TaskRecord } from './store/writers.ts';

export function taskRecord(result: TaskResult): TaskRecord {
  const { build, runs, task } = result;
  const last = runs.at(-1);
  const simTimes = runs.map((r) => r.simTime);
  return {
    taskId: task.id,
    kind: task.kind,
    instruction: task.instruction,
    deps: task.deps,
    passed: result.passed,
    buildSuccess: build.success,
    runVerdict: last?.verdict ?? null,
    buildS: build.wallTimeS,
    runS: runs.reduce((sum, r) => sum + r.wallTimeS, 0),
    caches: result.config.caches,
    configRtl: result.config.config_rtl,
    network: result.config.network_config,
    module: task.kind === 'unit_test' ? task.instruction.trim() : null,
    programs: runs.map((r) => ({ test: r.test, verdict: r.verdict, simTime: r.simTime, wallS: r.wallTimeS })),
    evidence: result.passed ? null : failureEvidence(result),
    simsFlags: simsFlags(build.config),
    buildId: build.buildId,
    buildReused: build.reused,
    failureReason: build.failureReason || null,
    buildErrors: build.errors,
    simTime: simTimes.length && simTimes.every((t) => t !== null) ? simTimes.reduce((a, b) => a! + b!, 0) : null,
    checkout: result.checkout,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
    rtlDiff: result.rtlDiff || null,
  };
}
