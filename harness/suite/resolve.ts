/**
 * From a parsed suite file to what the runner uses: each task's MaceSpec (with its effective budget),
 * its expert task and configuration (built and checked here, so a malformed entry fails before any
 * job starts), its source fault and co-design block; and each method, built-in or defined by the
 * study. Every problem comes back with the path of the field at fault.
 */
import { configForTask } from '../../mace/design.ts';
import { EditPathError, editablePath } from '../../mace/openpiton/edits.ts';
import { wayViolations } from '../../mace/openpiton/config.ts';
import type { LlmSpec } from '../../mace/llm/spec.ts';
import {
  BudgetSchema,
  MaceSpecSchema,
  TaskSchema,
  type Budget,
  type LoopOptions,
  type MaceSpec,
  type Task,
} from '../../mace/spec.ts';
import type { SourceEdit } from '../faults/source.ts';
import { METHODS, type Method, type MethodTask } from '../methods/index.ts';
import type { Path, Problem } from './locate.ts';
import { checkCodesign } from './codesign.ts';
import type { CheckoutsSection, OptionsOverride, SuiteFile, TaskEntry } from './schema.ts';

export interface SuiteTask extends MethodTask {
  readonly verified: boolean;
  readonly sourceFault: readonly SourceEdit[] | null;
  /** Where the entry stands in the file's tasks list. */
  readonly index: number;
}

export interface SuiteMethod {
  readonly name: string;
  /** The built-in method that runs (for a study-defined method, the one it is built on, followed to the root). */
  readonly method: Method;
  /** The method's own options, then every override on the way from the built-in to this one. */
  readonly options: Partial<LoopOptions>;
  /** The overrides a study definition added; empty for a built-in method. */
  readonly overrides: OptionsOverride;
  /** The method it is defined from, for a study-defined method. */
  readonly base: string | null;
}

export interface Study {
  readonly methods: readonly SuiteMethod[];
  readonly repeats: number;
  readonly onceRepeats: number;
  readonly seed: number;
  readonly llm: LlmSpec | null;
  readonly checkouts: CheckoutsSection;
  readonly labels: Readonly<Record<string, string>>;
}

export interface ResolvedSuite {
  readonly study: Study;
  readonly tasks: readonly SuiteTask[];
}

type Emit = (path: Path, message: string) => void;

export function resolveSuite(file: SuiteFile): { suite: ResolvedSuite; problems: Problem[] } {
  const problems: Problem[] = [];
  const emit: Emit = (path, message) => problems.push({ path, message });
  const methods = resolveMethods(file, emit);
  const seen = new Map<string, number>();
  const tasks: SuiteTask[] = [];
  file.tasks.forEach((entry, index) => {
    const earlier = seen.get(entry.id);
    if (earlier !== undefined) emit(['tasks', index, 'id'], `duplicate task id ${entry.id} (also tasks[${earlier}])`);
    seen.set(entry.id, index);
    const task = resolveTask(entry, index, file.study.budget, emit);
    if (task) tasks.push(task);
  });
  const suite: ResolvedSuite = {
    study: {
      methods,
      repeats: file.study.repeats,
      onceRepeats: file.study.once_repeats,
      seed: file.study.seed,
      llm: file.study.llm ?? null,
      checkouts: file.study.checkouts,
      labels: file.study.labels,
    },
    tasks,
  };
  return { suite, problems };
}

function resolveMethods(file: SuiteFile, emit: Emit): SuiteMethod[] {
  const out = new Map<string, SuiteMethod>();
  const known = () => [...new Set([...METHODS.keys(), ...out.keys()])].join(', ');
  file.study.methods.forEach((entry, i) => {
    const at: Path = ['study', 'methods', i];
    if (typeof entry === 'string') {
      const method = builtIn(entry);
      if (!method) return emit(at, `unknown method ${entry}; known: ${known()}`);
      if (out.has(entry)) return emit(at, `method ${entry} is listed twice`);
      out.set(entry, method);
      return;
    }
    if (METHODS.has(entry.name) || out.has(entry.name))
      return emit([...at, 'name'], `method ${entry.name} already exists; give the new method its own name`);
    const base = out.get(entry.base) ?? builtIn(entry.base);
    if (!base) return emit([...at, 'base'], `unknown base method ${entry.base}; known: ${known()}`);
    if (Object.keys(entry.options).length && !base.method.takesOptions)
      return emit([...at, 'options'], `${entry.base} takes no loop options; build on mace or an ablation instead`);
    out.set(entry.name, {
      name: entry.name,
      method: base.method,
      options: { ...base.options, ...entry.options },
      overrides: { ...base.overrides, ...entry.options },
      base: entry.base,
    });
  });
  return [...out.values()];
}

/** A built-in method as a suite method, with its own options and no overrides. */
export function builtIn(name: string): SuiteMethod | undefined {
  const method = METHODS.get(name);
  return method && { name, method, options: method.options, overrides: {}, base: null };
}

function resolveTask(entry: TaskEntry, index: number, studyBudget: object, emit: Emit): SuiteTask | undefined {
  const at: Path = ['tasks', index];
  const budget: Budget = BudgetSchema.parse({ ...studyBudget, ...(entry.budget ?? {}) });
  const parsed = MaceSpecSchema.safeParse({
    workloads: entry.workloads,
    objective: entry.objective,
    core: entry.core,
    target_mesh: entry.mesh,
    budget,
    rtl_timeout: entry.rtl_timeout,
    max_cycle: entry.max_cycle,
    workload_args: entry.workload_args,
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      emit([...at, ...issue.path.map((p) => (p === 'target_mesh' ? 'mesh' : p))], issue.message);
    return undefined;
  }
  const spec = parsed.data;
  const expert = expertTask(entry, spec, [...at, 'expert'], emit);
  const sourceFault = entry.source_fault?.filter((edit, j) => {
    try {
      editablePath(edit.path);
      return true;
    } catch (error) {
      if (!(error instanceof EditPathError)) throw error;
      emit([...at, 'source_fault', j, 'path'], error.message);
      return false;
    }
  });
  if (entry.codesign) checkCodesign(entry.codesign, spec, [...at, 'codesign'], emit);
  if (!expert) return undefined;
  return {
    id: entry.id,
    kind: entry.codesign ? 'codesign' : 'bringup',
    spec,
    expert,
    verified: entry.verified,
    sourceFault: sourceFault ?? null,
    codesign: entry.codesign ?? null,
    index,
  };
}

/** The expert block as a config task, with its configuration built and checked against the way rule. */
function expertTask(entry: TaskEntry, spec: MaceSpec, at: Path, emit: Emit): Task | undefined {
  const task = TaskSchema.parse({
    id: 'expert',
    kind: 'config',
    instruction: 'known passing configuration',
    caches: entry.expert.caches ?? null,
    config_rtl: entry.expert.config_rtl ?? null,
  });
  try {
    const violations = wayViolations(configForTask(spec, task));
    if (violations.length) {
      emit([...at, 'caches'], `the expert configuration breaks Ariane's way rule: ${violations.join('; ')}`);
      return undefined;
    }
  } catch (error) {
    emit(at, `the expert configuration cannot be built: ${(error as Error).message}`);
    return undefined;
  }
  return task;
}
