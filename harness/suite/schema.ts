/**
 * The suite file as written (zod only: no files, no store, no checkouts). A suite is one study: a
 * `study` section (methods, repeats, seed, LLM, checkouts, default budget, labels) and a `tasks`
 * section in the original MACE harness's format. Unknown keys are refused everywhere, with the keys
 * that are accepted. Cross-field checks that need the method registry or the OpenPiton vocabulary
 * (duplicate ids, unknown methods, expert configurations) are made by resolve.ts.
 */
import { z } from 'zod';
import { LlmSpecSchema } from '../../mace/llm/spec.ts';
import { CACHE_NAMES } from '../../mace/openpiton/geometry.ts';
import {
  BudgetSchema,
  CachesSchema,
  ConfigRtlSchema,
  CoreSchema,
  LoopOptionsSchema,
  MaceSpecSchema,
  MeshSchema,
  NetworkSchema,
  nonNegativeInt,
  nonNegativeNumber,
  positiveInt,
  positiveNumber,
  strictObject,
} from '../../mace/spec.ts';

export const SUITE_VERSION = 1;

/** The same fields, each optional and without its default: an override that says only what it changes. */
function overrides<T extends z.core.$ZodLooseShape>(shape: T) {
  return strictObject(
    Object.fromEntries(
      Object.entries(shape).map(([key, schema]) => {
        const inner = schema instanceof z.ZodDefault ? (schema.unwrap() as z.ZodType) : (schema as z.ZodType);
        const description = (schema as z.ZodType).description;
        return [key, (description ? inner.describe(description) : inner).optional()];
      }),
    ) as { [K in keyof T]: z.ZodOptional<z.ZodType<z.output<T[K]>, z.input<T[K]>>> },
  );
}

export const BudgetOverrideSchema = overrides(BudgetSchema.shape).describe(
  'Budget limits to change; the others keep their defaults (10 iterations, $20, 3600 s)',
);
export type BudgetOverride = z.output<typeof BudgetOverrideSchema>;

export const OptionsOverrideSchema = overrides(LoopOptionsSchema.shape).describe(
  'Loop options to change; the others keep the method’s own',
);
export type OptionsOverride = z.output<typeof OptionsOverrideSchema>;

export const TASK_ID_RE = /^[a-z0-9][a-z0-9._-]*$/;
export const METHOD_NAME_RE = /^[a-z][a-z0-9_]*$/;

const MethodNameSchema = z
  .string({ error: 'a method is named by a string such as mace or no_triage' })
  .regex(METHOD_NAME_RE, { error: 'a method name is lower-case letters, digits and underscores, such as no_triage' });

export const DefinedMethodSchema = strictObject({
  name: MethodNameSchema.describe('The new method’s name, as runs record it'),
  base: MethodNameSchema.describe('The method it builds on: a built-in one, or one defined earlier in this list'),
  options: OptionsOverrideSchema.default({}),
  description: z.string().optional().describe('What the method is for'),
}).describe('A method defined by the study: another method plus loop-option overrides');
export type DefinedMethod = z.output<typeof DefinedMethodSchema>;

export const MethodEntrySchema = z.union([MethodNameSchema, DefinedMethodSchema], {
  error: 'a method is a name such as no_triage, or {name, base, options} to define one',
});
export type MethodEntry = z.output<typeof MethodEntrySchema>;

const rate = z
  .number({ error: 'flake_rate is a probability from 0 to 1' })
  .min(0, { error: 'flake_rate is at least 0' })
  .max(1, { error: 'flake_rate is at most 1' });

export const CheckoutsSchema = strictObject({
  roots: z
    .array(z.string().min(1, { error: 'a checkout root must not be empty' }), {
      error: 'roots must be a list of OpenPiton checkout directories',
    })
    .min(1, { error: 'roots must name at least one checkout' })
    .optional()
    .describe('OpenPiton checkouts (relative paths are relative to the suite file); or use offline'),
  offline: positiveInt('offline')
    .optional()
    .describe('How many offline checkouts (the calibrated model of OpenPiton) to use instead of roots'),
  speed: nonNegativeNumber('speed')
    .optional()
    .describe('offline: real seconds are multiplied by this (0 answers at once; default 0.01)'),
  flake_rate: rate.optional().describe('offline: probability that a build or run fails for no reason (default 0)'),
  login_shell: z
    .boolean()
    .default(true)
    .describe('Run sims in a login shell (bash -l) so the profile sets up tools; false skips the profile'),
  env: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'an environment variable name such as MAKEFLAGS' }),
      z.string({ error: 'an environment value is a string' }),
    )
    .default({})
    .describe('Added to the environment of every sims call (MAKEFLAGS, RISCV, VERILATOR_ROOT)'),
  per_job: positiveInt('per_job')
    .optional()
    .describe('The most checkouts one loop job takes (default: all); fewer let loop jobs run side by side'),
})
  .superRefine((c, ctx) => {
    if ((c.roots === undefined) === (c.offline === undefined))
      ctx.addIssue({
        code: 'custom',
        message: 'give either roots: [directories] or offline: <count>, not both and not neither',
      });
    for (const key of ['speed', 'flake_rate'] as const)
      if (c[key] !== undefined && c.offline === undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: `${key} is a setting of offline checkouts` });
  })
  .describe('Where jobs build and simulate: OpenPiton checkouts, or offline ones');
export type CheckoutsSection = z.output<typeof CheckoutsSchema>;

export const StudySchema = strictObject({
  methods: z
    .array(MethodEntrySchema, { error: 'methods must be a list of method names' })
    .min(1, { error: 'methods must name at least one method' })
    .describe('Methods to run on every task they apply to; `mace suite run --help` lists the built-in ones'),
  repeats: positiveInt('repeats').default(1).describe('Runs of each job'),
  once_repeats: positiveInt('once_repeats')
    .default(1)
    .describe('Runs of each job of a deterministic method (expert, faultcheck_*)'),
  seed: nonNegativeInt('seed').default(0).describe('Shuffles the job order and seeds every job (with its repeat)'),
  llm: LlmSpecSchema.optional().describe('The LLM backend and model; needed when a method uses an LLM'),
  checkouts: CheckoutsSchema,
  budget: BudgetOverrideSchema.default({}),
  labels: z
    .record(z.string(), z.string({ error: 'a label value is a string' }))
    .default({})
    .describe('Recorded with every run (runs.meta.labels); --label k=v adds more'),
}).describe('How the study runs');
export type StudySection = z.output<typeof StudySchema>;

export const SourceEditSchema = strictObject({
  path: z.string().min(1).describe('Checkout-relative file under piton/design/'),
  old: z.string().min(1, { error: 'old must not be empty' }).describe('Text that occurs exactly once in the file'),
  new: z.string().describe('What replaces it'),
}).refine((edit) => edit.old !== edit.new, { error: 'new must differ from old', path: ['new'] });
export type SourceEditEntry = z.output<typeof SourceEditSchema>;

const SpaceAxisSchema = strictObject({
  sizes: z.array(positiveInt('a size')).min(1),
  assocs: z.array(positiveInt('an associativity')).min(1),
});

export const CodesignSchema = strictObject({
  simulations: positiveInt('simulations').default(20).describe('The most designs one search may simulate'),
  batch: positiveInt('batch').default(2).describe('Designs proposed per round'),
  area_budget_ratio: positiveNumber('area_budget_ratio')
    .nullable()
    .default(1.0)
    .describe("Area budget as a multiple of the default caches' area on this mesh; null: no budget"),
  space: strictObject({
    ...Object.fromEntries(CACHE_NAMES.map((name) => [name, SpaceAxisSchema.optional()])),
    networks: z.array(NetworkSchema).min(1).default(['2dmesh_config']),
  }).default({ networks: ['2dmesh_config'] }),
  grid: z
    .record(z.string(), z.array(z.union([z.number(), z.string()])).min(1))
    .describe('Knob (<cache>_size, <cache>_assoc, network) to the values the grid search tries'),
}).describe('Makes the task a co-design task: search cache geometries for the fastest design within an area budget');
export type CodesignEntry = z.output<typeof CodesignSchema>;

const spec = MaceSpecSchema.shape;

export const TaskEntrySchema = strictObject({
  id: z.string({ error: 'id must be a string' }).regex(TASK_ID_RE, {
    error: 'id is lower-case letters, digits, dots, underscores and dashes, such as pico-2x2-addi',
  }),
  core: CoreSchema.default('ariane'),
  mesh: MeshSchema.describe('[x_tiles, y_tiles]'),
  workloads: spec.workloads.describe('Gate programs, run in order; each must pass'),
  objective: spec.objective.describe('What the agent is asked to do, in prose'),
  verified: z
    .boolean()
    .default(false)
    .describe('Whether the task is known to be passable; others run only with --include-unverified or --tasks'),
  budget: BudgetOverrideSchema.optional(),
  rtl_timeout: spec.rtl_timeout,
  max_cycle: spec.max_cycle,
  expert: strictObject({
    caches: CachesSchema.optional().describe('Cache name to [size_bytes, associativity]'),
    config_rtl: ConfigRtlSchema.optional().describe('RTL defines added to the default MINIMAL_MONITORING'),
  })
    .default({})
    .describe('The known passing configuration (B0, and what fault checks break)'),
  workload_args: spec.workload_args.describe('Per gate program: finish_mask (hex, one digit per tile) and run_args'),
  source_fault: z
    .array(SourceEditSchema)
    .min(1, { error: 'source_fault must list at least one edit' })
    .optional()
    .describe('Edits planted in every checkout of the job and restored after it (even after a crash)'),
  codesign: CodesignSchema.optional(),
}).describe('One task, in the original MACE harness format');
export type TaskEntry = z.output<typeof TaskEntrySchema>;

export const SuiteFileSchema = strictObject({
  version: z.literal(SUITE_VERSION, { error: `version must be ${SUITE_VERSION}` }),
  name: z
    .string()
    .regex(TASK_ID_RE, { error: 'name is lower-case letters, digits, dots, underscores and dashes' })
    .optional()
    .describe('The study’s name; the default database is runs/<name>.duckdb (default: the file name)'),
  description: z.string().optional(),
  study: StudySchema,
  tasks: z
    .array(TaskEntrySchema, { error: 'tasks must be a list of task entries' })
    .min(1, { error: 'tasks must list at least one task' }),
}).describe('A MACE-TS suite: one study of tasks × methods × repeats');
export type SuiteFile = z.output<typeof SuiteFileSchema>;
