/**
 * Command-line flags over a loaded suite: which methods and tasks run, repeats, seed, the LLM and
 * the checkouts. A flag replaces the study's value; names that match nothing are refused with the
 * names that would.
 */
import { InputError } from '../../mace/errors.ts';
import type { LlmSpec } from '../../mace/llm/spec.ts';
import { METHODS } from '../methods/index.ts';
import type { Suite } from './load.ts';
import { builtIn, type SuiteMethod } from './resolve.ts';

export interface SuiteOverrides {
  readonly methods?: readonly string[];
  /** Task ids; unverified tasks run when named. */
  readonly tasks?: readonly string[];
  readonly includeUnverified?: boolean;
  readonly repeats?: number;
  readonly onceRepeats?: number;
  readonly seed?: number;
  readonly llm?: LlmSpec;
  /** Absolute checkout roots, in place of the study's checkouts. */
  readonly roots?: readonly string[];
  /** A count of offline checkouts, in place of the study's checkouts. */
  readonly offline?: number;
  readonly speed?: number;
  readonly loginShell?: boolean;
}

export function withOverrides(suite: Suite, o: SuiteOverrides): Suite {
  if (o.roots?.length && o.offline !== undefined) throw new InputError('give --piton-root or --offline, not both');
  const study = suite.study;
  let checkouts = study.checkouts;
  if (o.roots?.length) checkouts = { login_shell: checkouts.login_shell, env: checkouts.env, roots: [...o.roots] };
  if (o.offline !== undefined)
    checkouts = { login_shell: checkouts.login_shell, env: checkouts.env, offline: o.offline, speed: checkouts.speed };
  if (o.speed !== undefined) {
    if (checkouts.offline === undefined) throw new InputError('--speed is a setting of offline checkouts');
    checkouts = { ...checkouts, speed: o.speed };
  }
  if (o.loginShell !== undefined) checkouts = { ...checkouts, login_shell: o.loginShell };
  return {
    ...suite,
    tasks: selectTasks(suite, o),
    study: {
      ...study,
      methods: o.methods ? selectMethods(study.methods, o.methods) : study.methods,
      repeats: o.repeats ?? study.repeats,
      onceRepeats: o.onceRepeats ?? study.onceRepeats,
      seed: o.seed ?? study.seed,
      llm: o.llm ?? study.llm,
      checkouts,
    },
  };
}

function selectTasks(suite: Suite, o: SuiteOverrides) {
  if (!o.tasks) return o.includeUnverified ? suite.allTasks : suite.tasks;
  const ids = suite.allTasks.map((t) => t.id);
  const unknown = o.tasks.filter((id) => !ids.includes(id));
  if (unknown.length)
    throw new InputError(`--tasks: no task ${unknown.join(', ')} in ${suite.file}; tasks: ${ids.join(', ')}`);
  return suite.allTasks.filter((t) => o.tasks!.includes(t.id));
}

/** The suite's own methods by name, or built-in ones it does not list. */
function selectMethods(own: readonly SuiteMethod[], names: readonly string[]): SuiteMethod[] {
  return names.map((name) => {
    const method = own.find((m) => m.name === name) ?? builtIn(name);
    if (!method)
      throw new InputError(
        `--methods: unknown method ${name}; the suite's: ${own.map((m) => m.name).join(', ')}; built-in: ${[...METHODS.keys()].join(', ')}`,
      );
    return method;
  });
}
