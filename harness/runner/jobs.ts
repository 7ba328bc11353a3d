/**
 * Jobs: tasks × methods (where the method applies) × repeats, once-only methods `once_repeats`
 * times, in an order shuffled by the study seed (so a slow hour of an LLM service or a loaded
 * machine does not fall on one method). Each job's seed comes from the study seed and its repeat, so
 * every method meets the same seeded agent in repeat r, and a job's key names everything its result
 * depends on.
 */
import { createHash } from 'node:crypto';
import type { LlmSpec } from '../../mace/llm/spec.ts';
import { seeded, seedFrom } from '../../mace/llm/scripted/random.ts';
import type { SuiteMethod, SuiteTask } from '../suite/resolve.ts';

export interface Job {
  readonly task: SuiteTask;
  readonly method: SuiteMethod;
  readonly repeat: number;
  /** Handed to every random part of the job (the LLM's sampling seed, the scripted agent); recorded in runs.seed. */
  readonly seed: number;
  /** `<task> <method> r<repeat>`, for messages. */
  readonly name: string;
}

export interface JobPlan {
  readonly tasks: readonly SuiteTask[];
  readonly methods: readonly SuiteMethod[];
  readonly repeats: number;
  readonly onceRepeats: number;
  readonly seed: number;
}

/** A job's seed: the same for every method of one repeat, different between repeats and studies. */
export const jobSeed = (studySeed: number, repeat: number): number => seedFrom('mace-job', studySeed, repeat) >>> 1;

/** A copy of `items` in an order that depends only on `seed` (Fisher-Yates over a seeded source). */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const random = seeded(seedFrom('mace-shuffle', seed));
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export function expandJobs(plan: JobPlan): Job[] {
  const jobs: Job[] = [];
  for (const task of plan.tasks) {
    for (const method of plan.methods) {
      if (!method.method.applies(task)) continue;
      const repeats = method.method.once ? plan.onceRepeats : plan.repeats;
      for (let repeat = 0; repeat < repeats; repeat++)
        jobs.push({
          task,
          method,
          repeat,
          seed: jobSeed(plan.seed, repeat),
          name: `${task.id} ${method.name} r${repeat}`,
        });
    }
  }
  return shuffled(jobs, plan.seed);
}

/** What a job's key is made of, each part hashed, so a changed key can say what changed. */
export interface JobParts {
  /** The task entry: spec without its budget, expert configuration, source fault, co-design block. */
  readonly task: string;
  readonly budget: string;
  /** The method and its effective loop options. */
  readonly method: string;
  /** The LLM spec, for methods that use one. */
  readonly llm: string | null;
  /** The content of the checkouts the job may run on (identity.ts). */
  readonly checkouts: string;
  readonly seed: number;
}

export const PART_NAMES: Readonly<Record<keyof JobParts, string>> = {
  task: 'task entry',
  budget: 'budget',
  method: 'method options',
  llm: 'LLM',
  checkouts: 'checkout contents',
  seed: 'seed',
};

/** JSON with object keys sorted at every depth, so equal values hash alike. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

export const shortHash = (value: unknown): string =>
  createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 12);

export function jobParts(job: Job, llm: LlmSpec | null, checkouts: string): JobParts {
  const { budget, ...spec } = job.task.spec;
  const { method } = job.method;
  return {
    task: shortHash({ spec, expert: job.task.expert, sourceFault: job.task.sourceFault, codesign: job.task.codesign }),
    budget: shortHash(budget),
    method: shortHash({ method: method.name, options: job.method.options, checkouts: method.checkouts }),
    llm: method.usesLlm ? shortHash(llm) : null,
    checkouts,
    seed: job.seed,
  };
}

/** `<task>/<method>/r<repeat>/<hash of the parts>`: readable, and different whenever a part differs. */
export const jobKey = (job: Job, parts: JobParts): string =>
  `${job.task.id}/${job.method.name}/r${job.repeat}/${shortHash(parts)}`;

/** The parts that differ, in words ("task entry", "budget", ...). */
export function changedParts(before: Partial<JobParts>, after: JobParts): string[] {
  return (Object.keys(PART_NAMES) as (keyof JobParts)[])
    .filter((part) => before[part] !== after[part])
    .map((part) => PART_NAMES[part]);
}
