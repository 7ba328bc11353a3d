/**
 * From a planned task to the build it resolves to (its design), and how a design differs from a
 * reference: the changes narrowing undoes, triage lists as candidate causes, and the plan check
 * compares with configurations known to break.
 */
import { buildId, makeConfig, type PitonConfig } from './openpiton/config.ts';
import { COVERAGE_LINE_FLAG } from './openpiton/config.ts';
import {
  CACHE_NAMES,
  DEFAULT_CONFIG_RTL,
  DEFAULT_NETWORK,
  type CacheGeometry,
  type CacheName,
  type Network,
} from './openpiton/geometry.ts';
import { requiredDefines } from './objective.ts';
import type { MaceSpec, Task } from './spec.ts';

export interface DesignOptions {
  /** The RTL-edit diff the build carries; part of its identity. */
  readonly diff?: string;
}

/** The PitonConfig a config, workload or rtl task builds. Its defines always keep the defaults. */
export function configForTask(
  spec: MaceSpec,
  task: Pick<Task, 'caches' | 'config_rtl' | 'network'>,
  options: DesignOptions = {},
): PitonConfig {
  return makeConfig({
    core: spec.core,
    generic_core: spec.generic_core?.name ?? '',
    x_tiles: spec.target_mesh[0],
    y_tiles: spec.target_mesh[1],
    network_config: task.network ?? DEFAULT_NETWORK,
    config_rtl: [...new Set([...DEFAULT_CONFIG_RTL, ...(task.config_rtl ?? [])])].sort(),
    caches: task.caches ?? {},
    extra_flags: spec.coverage ? [COVERAGE_LINE_FLAG] : [],
    diff: options.diff ?? '',
  });
}

/** Two tasks with the same design key build the same model. */
export function designKey(config: PitonConfig): string {
  return buildId(config);
}

export type Change =
  | { readonly kind: 'added_define'; readonly define: string }
  | { readonly kind: 'missing_define'; readonly define: string }
  | { readonly kind: 'cache'; readonly cache: CacheName; readonly from: CacheGeometry; readonly to: CacheGeometry }
  | { readonly kind: 'network'; readonly network: Network; readonly from: Network };

/** The task form of the reference: no cache or network override, the required defines. */
export function referenceTask(requiredDefines: readonly string[]): Pick<Task, 'caches' | 'config_rtl' | 'network'> {
  return { caches: null, config_rtl: requiredDefines.length ? [...requiredDefines] : null, network: null };
}

/** How `config` differs from `reference`, in both directions, in a stable order. */
export function changesBetween(config: PitonConfig, reference: PitonConfig): Change[] {
  const changes: Change[] = [];
  for (const define of config.config_rtl)
    if (!reference.config_rtl.includes(define)) changes.push({ kind: 'added_define', define });
  for (const define of reference.config_rtl)
    if (!config.config_rtl.includes(define)) changes.push({ kind: 'missing_define', define });
  for (const cache of CACHE_NAMES) {
    const [a, b] = [config.caches[cache], reference.caches[cache]];
    if (a[0] !== b[0] || a[1] !== b[1]) changes.push({ kind: 'cache', cache, from: b, to: a });
  }
  if (config.network_config !== reference.network_config) {
    changes.push({ kind: 'network', network: config.network_config, from: reference.network_config });
  }
  return changes;
}

/**
 * The configuration a failed design is compared against: the mesh's defaults plus the RTL defines
 * the objective says a build needs. A required define the plan left out is then a change too.
 */
export function referenceConfig(spec: MaceSpec): PitonConfig {
  return configForTask(spec, referenceTask(requiredDefines(spec.objective)));
}

/** How a design differs from the reference: the candidate causes of its failure. */
export function changesFromReference(spec: MaceSpec, config: PitonConfig): Change[] {
  return changesBetween(config, referenceConfig(spec));
}

export function describeChange(change: Change): string {
  switch (change.kind) {
    case 'added_define':
      return `adds ${change.define}`;
    case 'missing_define':
      return `leaves out ${change.define}`;
    case 'cache':
      return `${change.cache}=${change.to[0]},${change.to[1]} (default ${change.from[0]},${change.from[1]})`;
    case 'network':
      return `${change.network} (default ${change.from})`;
  }
}

export function describeChanges(changes: readonly Change[]): string {
  return changes.length ? changes.map(describeChange).join('; ') : 'none';
}

/** The imperative that undoes a change, as narrowing states a fix and a planner reads one. */
export function undoInstruction(change: Change): string {
  switch (change.kind) {
    case 'added_define':
      return `remove the ${change.define} define`;
    case 'missing_define':
      return `add the ${change.define} define`;
    case 'cache':
      return `restore the default ${change.cache} geometry (${change.from[0]},${change.from[1]})`;
    case 'network':
      return `use the ${change.from} network instead of ${change.network}`;
  }
}

/** A stable identity for a change, for set comparisons. */
export function changeId(change: Change): string {
  switch (change.kind) {
    case 'added_define':
    case 'missing_define':
      return `${change.kind}:${change.define}`;
    case 'cache':
      return `cache:${change.cache}=${change.to[0]},${change.to[1]}`;
    case 'network':
      return `network:${change.network}`;
  }
}

/** The task with some changes undone: defines removed or restored, caches and network back to the reference. */
export function undoChanges<T extends Pick<Task, 'caches' | 'config_rtl' | 'network'>>(
  task: T,
  undo: readonly Change[],
  reference: PitonConfig,
): T {
  const defines = new Set(task.config_rtl ?? []);
  const caches: Partial<Record<CacheName, CacheGeometry>> = { ...(task.caches ?? {}) };
  let network = task.network;
  for (const change of undo) {
    if (change.kind === 'added_define') defines.delete(change.define);
    else if (change.kind === 'missing_define') defines.add(change.define);
    else if (change.kind === 'cache') caches[change.cache] = reference.caches[change.cache];
    else network = reference.network_config;
  }
  return {
    ...task,
    config_rtl: defines.size ? [...defines].sort() : null,
    caches: Object.keys(caches).length ? caches : null,
    network,
  };
}
