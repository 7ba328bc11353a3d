/**
 * The loop's inputs and plan vocabulary as zod schemas: MaceSpec, Budget, LoopOptions, Task, cache
 * geometry and run statuses. Every message names what is accepted; the path of the field at fault is
 * added by formatIssues().
 */
import { z } from 'zod';
import {
  CACHE_NAMES,
  CORES,
  DEFINE_RE,
  MAX_TILES_PER_AXIS,
  NETWORKS,
  type CacheGeometry,
  type CacheName,
} from './openpiton/geometry.ts';
import { shown } from './openpiton/issues.ts';
import { parseOrThrow } from './errors.ts';

/** OpenPiton's own monitor default (50,000) cut the multi-tile gate programs off. */
export const RECOMMENDED_RTL_TIMEOUT = 1_000_000;

/**
 * A zod rule for a number field: `${what} must be ${rule}, got ...` when `ok` refuses the value.
 * `json` states the same rule in JSON Schema, which a transform cannot show by itself (suite schemas).
 */
const numberRule = (ok: (n: number) => boolean, rule: string, json: Record<string, unknown>) => (what: string) =>
  z
    .unknown()
    .transform((value, ctx) => {
      if (typeof value === 'number' && Number.isFinite(value) && ok(value)) return value;
      ctx.addIssue({ code: 'custom', message: `${what} must be ${rule}, got ${shown(value)}` });
      return z.NEVER;
    })
    .meta(json);

export const positiveInt = numberRule((n) => Number.isInteger(n) && n > 0, 'a positive integer', {
  type: 'integer',
  minimum: 1,
});
export const positiveNumber = numberRule((n) => n > 0, 'a positive number', { type: 'number', exclusiveMinimum: 0 });
export const nonNegativeInt = numberRule((n) => Number.isInteger(n) && n >= 0, 'an integer >= 0', {
  type: 'integer',
  minimum: 0,
});
export const nonNegativeNumber = numberRule((n) => n >= 0, 'a number >= 0', { type: 'number', minimum: 0 });

/** A strict object whose unknown-key message lists the keys it accepts. */
export function strictObject<T extends z.core.$ZodLooseShape>(shape: T) {
  const accepted = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `unknown key${iss.keys.length > 1 ? 's' : ''} ${iss.keys.map((k) => JSON.stringify(k)).join(', ')}; accepted: ${accepted}`
        : undefined,
  });
}

export const oneOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, { error: (iss) => `${what} must be one of ${values.join(', ')}; got ${shown(iss.input)}` });

export const CoreSchema = oneOf(CORES, 'core');
export const NetworkSchema = oneOf(NETWORKS, 'network');

export const TileCountSchema = positiveInt('a tile count').pipe(
  z.number().max(MAX_TILES_PER_AXIS, {
    error: (iss) => `tiles per axis must be 1..${MAX_TILES_PER_AXIS}, got ${shown(iss.input)}`,
  }),
);

/** [x_tiles, y_tiles]. */
export const MeshSchema = z
  .tuple([TileCountSchema, TileCountSchema], {
    error: (iss) => `mesh must be [x_tiles, y_tiles] with each 1..${MAX_TILES_PER_AXIS}, got ${shown(iss.input)}`,
  })
  .readonly();
export type Mesh = z.infer<typeof MeshSchema>;

/** `[size_bytes, associativity]`, both positive integers. */
export const CacheGeometrySchema = z
  .tuple([positiveInt('size'), positiveInt('associativity')], {
    error: (iss) => `a cache is [size_bytes, associativity] with both positive integers, got ${shown(iss.input)}`,
  })
  .readonly() as unknown as z.ZodType<CacheGeometry>;

const CacheNameSchema = oneOf(CACHE_NAMES, 'a cache name');

/**
 * A partial cache map. Accepted as `{l1d: [8192, 8]}` or as a list of `[name, size, assoc]` entries,
 * the form in which a duplicated name can be written (and is refused).
 */
export const CachesSchema = z
  .union([z.record(z.string(), z.unknown()), z.array(z.tuple([z.string(), z.unknown(), z.unknown()]))], {
    error: (iss) => `caches must be a map of cache name to [size, associativity], got ${shown(iss.input)}`,
  })
  .transform((value, ctx) => {
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map(([name, size, assoc]) => [name, [size, assoc]])
      : Object.entries(value);
    const out: Partial<Record<CacheName, CacheGeometry>> = {};
    const seen = new Set<string>();
    for (const [name, geometry] of entries) {
      if (seen.has(name)) {
        ctx.addIssue({ code: 'custom', path: [name], message: `cache ${name} is given twice` });
        continue;
      }
      seen.add(name);
      const key = CacheNameSchema.safeParse(name);
      if (!key.success) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `unknown cache ${shown(name)}; valid: ${CACHE_NAMES.join(', ')}`,
        });
        continue;
      }
      const parsed = CacheGeometrySchema.safeParse(geometry);
      if (!parsed.success) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `cache ${name}: ${parsed.error.issues[0]?.message ?? 'is invalid'}`,
        });
        continue;
      }
      out[key.data] = parsed.data;
    }
    return out as Readonly<Partial<Record<CacheName, CacheGeometry>>>;
  });

/** Upper-snake-case RTL defines with no duplicates. */
export const ConfigRtlSchema = z
  .array(z.unknown(), { error: (iss) => `config_rtl must be a list of RTL defines, got ${shown(iss.input)}` })
  .transform((flags, ctx) => {
    const seen = new Set<string>();
    flags.forEach((flag, i) => {
      if (typeof flag !== 'string' || !DEFINE_RE.test(flag)) {
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: `${shown(flag)} is not an upper-snake-case define such as CONFIG_DISABLE_BIST_CLEAR`,
        });
      } else if (seen.has(flag)) {
        ctx.addIssue({ code: 'custom', path: [i], message: `define ${flag} is given twice` });
      }
      seen.add(String(flag));
    });
    return flags as string[];
  });

export const BudgetSchema = strictObject({
  max_iterations: positiveInt('max_iterations').default(10).describe('Iterations per run'),
  max_usd: positiveNumber('max_usd').default(20.0).describe('Accumulated LLM cost in US dollars'),
  max_wall_s: positiveInt('max_wall_s').default(3600).describe('Wall-clock seconds since the checksum check'),
}).describe('Three independent limits; each must be positive.');
export type Budget = z.infer<typeof BudgetSchema>;

export const TRIAGE_MODES = ['llm', 'raw', 'off'] as const;
export const CHECK_MODES = ['sim', 'build'] as const;
/** The most thinking tokens one planner call may spend unless LoopOptions says otherwise. */
export const PLANNER_THINKING_BUDGET = 512;

export const LoopOptionsSchema = strictObject({
  triage: oneOf(TRIAGE_MODES, 'triage')
    .default('llm')
    .describe('llm: diagnose; raw: hand the evidence to the re-plan; off: nothing'),
  check: oneOf(CHECK_MODES, 'check')
    .default('sim')
    .describe('sim: run the gate programs; build: pass a task on its build'),
  reuse_builds: z.boolean().default(true).describe('false: every build is clean'),
  task_prompts: z.boolean().default(true).describe('false: tasks make no LLM call of their own'),
  post_mortem: z.boolean().default(true).describe('false: a run ending without a pass gets no post-mortem'),
  rtl_edits: z.boolean().default(false).describe('true: the planner may emit rtl tasks with an RTL edit tool'),
  plan_check: z.boolean().default(true).describe('false: each plan runs as the planner wrote it'),
  raw_evidence: z.boolean().default(true).describe("false: the re-plan gets triage's label and fix only"),
  narrowing: z.boolean().default(true).describe('false: a failed task goes to triage without probes'),
  fast_path: z.boolean().default(true).describe('false: every plan keeps all its tasks and their LLM calls'),
  planner_thinking: positiveInt('planner_thinking')
    .nullable()
    .default(PLANNER_THINKING_BUDGET)
    .describe('Thinking-token cap of each planner call; null leaves it to the model'),
  gate_pass_ends_run: z
    .boolean()
    .default(true)
    .describe('false: a run passes only when every task of an iteration passes'),
  carry_edits: z.boolean().default(true).describe('false: each iteration starts from the design as it stands'),
}).describe('Turns off one part of the loop for a baseline or an ablation; the defaults are the full loop.');
export type LoopOptions = z.infer<typeof LoopOptionsSchema>;
export const LOOP_OPTION_NAMES = Object.keys(LoopOptionsSchema.shape) as (keyof LoopOptions)[];

export const TASK_KINDS = ['config', 'workload', 'unit_test', 'rtl'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

export const TaskSchema = strictObject({
  id: z.string({ error: 'id must be a string' }).trim().min(1, { error: 'id must not be empty' }),
  deps: z
    .array(
      z
        .string({ error: 'a dependency must be a task id' })
        .trim()
        .min(1, { error: 'a dependency id must not be empty' }),
    )
    .default([]),
  kind: oneOf(TASK_KINDS, 'kind'),
  instruction: z.string({ error: 'instruction must be a string' }).default(''),
  caches: CachesSchema.nullable().default(null).describe('Cache overrides; null keeps the defaults'),
  config_rtl: ConfigRtlSchema.nullable().default(null).describe('Defines added to the defaults; null adds none'),
  network: NetworkSchema.nullable().default(null).describe('Interconnect override; null keeps the 2D mesh'),
});
export type Task = z.infer<typeof TaskSchema>;
export type TaskInput = z.input<typeof TaskSchema>;

/** Build a Task, throwing an InputError that names each field at fault. */
export function makeTask(input: TaskInput): Task {
  return parseOrThrow(TaskSchema, input, 'task', 'task');
}

export const WorkloadArgsSchema = strictObject({
  finish_mask: z
    .string()
    .regex(/^[0-9a-fA-F]*$/, { error: 'finish_mask must be hexadecimal digits, one per tile' })
    .default(''),
  run_args: z.array(z.string().regex(/^-/, { error: 'each run argument must start with -' })).default([]),
});
export type WorkloadArgs = z.infer<typeof WorkloadArgsSchema>;

export const MaceSpecSchema = strictObject({
  workloads: z
    .array(z.string().trim().min(1, { error: 'a workload name must not be empty' }), {
      error: (iss) => `workloads must be a list of gate program names, got ${shown(iss.input)}`,
    })
    .min(1, { error: 'workloads must name at least one gate program' }),
  objective: z
    .string({ error: 'objective must be a sentence' })
    .refine((s) => s.trim().length > 0, { error: 'objective must not be empty' }),
  core: CoreSchema.default('ariane'),
  target_mesh: MeshSchema.default([1, 1]),
  budget: BudgetSchema.default(BudgetSchema.parse({})),
  coverage: z.boolean().default(false).describe('Add Verilator line coverage to every build'),
  rtl_timeout: positiveInt('rtl_timeout')
    .nullable()
    .default(null)
    .describe(`Cycles a thread may go without retiring; null means ${RECOMMENDED_RTL_TIMEOUT}`),
  max_cycle: positiveInt('max_cycle').nullable().default(null).describe("Max-cycles cap; null keeps OpenPiton's"),
  workload_args: z.record(z.string(), WorkloadArgsSchema).default({}),
}).superRefine((spec, ctx) => {
  for (const program of Object.keys(spec.workload_args)) {
    if (!spec.workloads.includes(program)) {
      ctx.addIssue({
        code: 'custom',
        path: ['workload_args', program],
        message: `${program} is not one of the workloads (${spec.workloads.join(', ')})`,
      });
    }
  }
});
export type MaceSpec = z.infer<typeof MaceSpecSchema>;
export type MaceSpecInput = z.input<typeof MaceSpecSchema>;

export function makeSpec(input: MaceSpecInput): MaceSpec {
  return parseOrThrow(MaceSpecSchema, input, 'MaceSpec');
}

export const RUN_STATUSES = [
  'running',
  'passed',
  'failed',
  'planning_failed',
  'budget_exceeded',
  'checksum_mismatch',
  'unsupported_core',
  'error',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RunStatusSchema = oneOf(RUN_STATUSES, 'status');

/** Statuses a batch never runs again: the outcome would be the same. `running` and `error` are not among them. */
export const FINISHED_STATUSES: ReadonlySet<RunStatus> = new Set([
  'passed',
  'failed',
  'planning_failed',
  'budget_exceeded',
  'checksum_mismatch',
  'unsupported_core',
]);

export const VERDICTS = ['pass', 'fail', 'timeout', 'maxcycles'] as const;
export type Verdict = (typeof VERDICTS)[number];
