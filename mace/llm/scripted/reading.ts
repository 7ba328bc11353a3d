/**
 * How the scripted agent reads the prompts the loop actually sends: the inputs of a planner prompt
 * (objective, core, mesh, workloads, feedback, rejection), the evidence of a triage prompt, and the
 * fix instructions in feedback notes, all by the lines and headings those prompts use.
 */
import { CACHE_NAMES, type CacheGeometry, type CacheName, type Network } from '../../openpiton/geometry.ts';
import { namedDefines } from '../../objective.ts';
import { PROMPT_HEADINGS } from '../../planner.ts';

const line = (text: string, label: string): string | undefined =>
  new RegExp(`^${label}:[ \\t]*(.*)$`, 'm').exec(text)?.[1]?.trim();

/** What a planner prompt says. */
export interface PlannerInputs {
  readonly objective: string;
  readonly core: string;
  readonly mesh: readonly [number, number];
  readonly workloads: readonly string[];
  readonly rtlOffered: boolean;
  readonly feedback: string;
  readonly rejection: string;
  /** A Generic Tile core's wrapper, top module and sources folder, when the run has one. */
  readonly genericWrapper?: { readonly wrapper: string; readonly top: string; readonly rtl: string };
}

export function readPlannerPrompt(prompt: string): PlannerInputs {
  const mesh = /^Target mesh:\s*(\d+)x(\d+)/m.exec(prompt);
  const generic =
    /^Generic Tile core: \S+, ISA \S+, top module (\S+)\. Its sources are in (\S+); its wrapper (\S+) /m.exec(prompt);
  const section = (heading: string) => {
    const start = prompt.indexOf(heading);
    if (start < 0) return '';
    const rest = prompt.slice(start + heading.length);
    const next = Object.values(PROMPT_HEADINGS)
      .map((h) => rest.indexOf(h))
      .filter((i) => i >= 0);
    return (next.length ? rest.slice(0, Math.min(...next)) : rest).trim();
  };
  return {
    objective: line(prompt, 'Objective') ?? '',
    core: line(prompt, 'Core') ?? 'ariane',
    mesh: mesh ? [Number(mesh[1]), Number(mesh[2])] : [1, 1],
    workloads: (/^Gate workloads[^:]*:\s*(.*)$/m.exec(prompt)?.[1] ?? '')
      .split(',')
      .map((w) => w.trim())
      .filter(Boolean),
    rtlOffered: /kind=config\|workload\|unit_test\|rtl/.test(prompt),
    feedback: section(PROMPT_HEADINGS.feedback),
    rejection: section(PROMPT_HEADINGS.rejection),
    ...(generic ? { genericWrapper: { top: generic[1]!, rtl: generic[2]!, wrapper: generic[3]! } } : {}),
  };
}

/** What a triage prompt says about the failure. */
export interface FailureReport {
  readonly objective: string;
  readonly core: string;
  readonly mesh: readonly [number, number];
  readonly taskId: string;
  readonly buildSucceeded: boolean;
  readonly verdict: string;
  readonly defines: readonly string[];
  readonly network: string;
  readonly caches: Readonly<Partial<Record<CacheName, CacheGeometry>>>;
  readonly failureReason: string;
  readonly errors: readonly string[];
  readonly changes: string;
  readonly rtlEdits: boolean;
  /** Everything after the flags: the logs the evidence quotes. */
  readonly text: string;
}

export function readFailure(text: string): FailureReport {
  const flags = line(text, 'Build flags') ?? '';
  const defines = [...flags.matchAll(/-config_rtl=(\S+)/g)].map((m) => m[1]!);
  const caches: Partial<Record<CacheName, CacheGeometry>> = {};
  for (const name of CACHE_NAMES) {
    const size = new RegExp(`-config_${name}_size=(\\d+)`).exec(flags)?.[1];
    const assoc = new RegExp(`-config_${name}_associativity=(\\d+)`).exec(flags)?.[1];
    if (size && assoc) caches[name] = [Number(size), Number(assoc)];
  }
  const errorsBlock = /^Build errors:\n([\s\S]*?)(?:\n\n|$)/m.exec(text)?.[1] ?? '';
  const mesh = /Target mesh:\s*(\d+)x(\d+)/.exec(text) ?? /x_tiles=(\d+) -y_tiles=(\d+)/.exec(flags);
  return {
    objective: line(text, 'Objective') ?? '',
    core:
      /^Core:\s*(\w+)/m.exec(text)?.[1] ??
      (flags.includes('-pico') ? 'pico' : flags.includes('-ariane') ? 'ariane' : 'sparc'),
    mesh: mesh ? [Number(mesh[1]), Number(mesh[2])] : [1, 1],
    taskId: /^Task (\S+) \(/m.exec(text)?.[1] ?? '',
    buildSucceeded: /build succeeded:\s*true/i.test(text),
    verdict: (/Run verdict:\s*([^\n)]*)/i.exec(text)?.[1] ?? 'none').trim(),
    defines,
    network: /-network_config=(\S+)/.exec(flags)?.[1] ?? '2dmesh_config',
    caches,
    failureReason: line(text, 'Build failure reason') ?? '',
    errors: errorsBlock.split('\n').filter(Boolean),
    changes: line(text, 'Changes from the defaults') ?? 'none',
    rtlEdits: /also edit files under piton\/design/.test(text),
    text,
  };
}

/** A design as the planner policy edits it. */
export interface DesignDraft {
  defines: Set<string>;
  caches: Partial<Record<CacheName, CacheGeometry>>;
  network: Network | null;
}

/** Apply the fix instructions a note or rejection states, in order, to a design. */
export function applyFixes(draft: DesignDraft, text: string, objective: string): void {
  const keep = new Set(namedDefines(objective));
  for (const m of text.matchAll(/\b(remove|add) the ([A-Z][A-Z0-9_]*) define/g)) {
    if (m[1] === 'remove' && !keep.has(m[2]!)) draft.defines.delete(m[2]!);
    if (m[1] === 'add') draft.defines.add(m[2]!);
  }
  for (const m of text.matchAll(/restore the default (l1i|l1d|l15|l2) geometry/g))
    delete draft.caches[m[1] as CacheName];
  for (const m of text.matchAll(/lower the (l1i|l1d) associativity to (\d+)/g)) {
    const name = m[1] as CacheName;
    const current = draft.caches[name];
    draft.caches[name] = [current?.[0] ?? (name === 'l1i' ? 16384 : 8192), Number(m[2])];
  }
  for (const m of text.matchAll(/use the (2dmesh_config|xbar_config) network/g))
    draft.network = m[1] === '2dmesh_config' ? null : 'xbar_config';
  if (/return to the default configuration/.test(text)) {
    for (const define of [...draft.defines]) if (!keep.has(define)) draft.defines.delete(define);
    draft.caches = {};
    draft.network = null;
  }
}
