/**
 * Parsers for the directive lines a model writes at the end of its reply: TASK, CACHES and
 * CONFIG_RTL from the planner; DIAGNOSIS and FIX from triage; ASSESSMENT, EXPLANATION and
 * NEXT_STEPS from the post-mortem. They share three rules: a tag starts its line (after optional
 * whitespace and an optional list marker) and matches case-insensitively; a value ends at the end of
 * its line or before another known tag on the same line; a malformed line is dropped, not an error.
 */
import { CACHE_NAMES, DEFINE_RE, type CacheGeometry, type CacheName } from './openpiton/geometry.ts';
import { TASK_KINDS, TaskSchema, type Task, type TaskKind } from './spec.ts';

export const KNOWN_TAGS = [
  'TASK',
  'CACHES',
  'CONFIG_RTL',
  'DIAGNOSIS',
  'FIX',
  'ASSESSMENT',
  'EXPLANATION',
  'NEXT_STEPS',
] as const;
export type Tag = (typeof KNOWN_TAGS)[number];

export const KNOWN_DIAGNOSES = [
  'test_bug',
  'config_error',
  'timeout',
  'maxcycles',
  'rtl_suspect',
  'testbench_mismatch',
] as const;
export const KNOWN_ASSESSMENTS = ['fixable_config', 'likely_hardware_limitation', 'inconclusive'] as const;

/** One occurrence of a tag: its value and the 1-based line it stands on. */
export interface TagMatch {
  readonly value: string;
  readonly line: number;
}

const TAG_ALTERNATION = KNOWN_TAGS.join('|');
/** A tag at the start of a line, after optional whitespace and a list marker. */
const LINE_START = new RegExp(`^\\s*(?:[-*•]|\\d+[.)])?[ \\t]*(${TAG_ALTERNATION}):[ \\t]*`, 'i');
/** Another known tag later on the same line, which ends the value before it. */
const NEXT_TAG = new RegExp(`[ \\t]+(${TAG_ALTERNATION}):[ \\t]*`, 'i');

interface Directive extends TagMatch {
  readonly tag: Tag;
}

/** Every directive of a text, in order: a line may hold several (`DIAGNOSIS: x FIX: y`). */
function directives(text: string): Directive[] {
  const out: Directive[] = [];
  text.split('\n').forEach((raw, index) => {
    const start = LINE_START.exec(raw);
    if (!start) return;
    let tag = start[1]!.toUpperCase() as Tag;
    let rest = raw.slice(start[0].length);
    for (;;) {
      const next = NEXT_TAG.exec(rest);
      const value = (next ? rest.slice(0, next.index) : rest).trim();
      if (value) out.push({ tag, value, line: index + 1 });
      if (!next) break;
      tag = next[1]!.toUpperCase() as Tag;
      rest = rest.slice(next.index + next[0].length);
    }
  });
  return out;
}

/** Every value of a tag, in reply order. */
export function findTag(text: string, tag: Tag): TagMatch[] {
  return directives(text)
    .filter((d) => d.tag === tag)
    .map(({ value, line }) => ({ value, line }));
}

/** The last value of a single-value tag, or undefined. */
export function lastTag(text: string, tag: Tag): string | undefined {
  return findTag(text, tag).at(-1)?.value;
}

/** A directive line the parser dropped, with why, for users debugging a model's reply. */
export interface DroppedLine {
  readonly tag: Tag;
  readonly line: number;
  readonly text: string;
  readonly reason: string;
}

export interface ParsedPlan {
  readonly tasks: Task[];
  readonly dropped: DroppedLine[];
  /** TASK: lines whose kind field named no known kind: such a reply holds no usable plan. */
  readonly unknownKinds: DroppedLine[];
}

const KIND_SET: ReadonlySet<string> = new Set(TASK_KINDS);

/**
 * The planner's TASK, CACHES and CONFIG_RTL lines as validated tasks, in reply order. CACHES lines
 * for one task merge with later values winning; CONFIG_RTL lines form a sorted union. A bare known
 * kind in the third field (`| rtl |`) reads as `kind=rtl`.
 */
export function parseTasks(text: string): ParsedPlan {
  const dropped: DroppedLine[] = [];
  const unknownKinds: DroppedLine[] = [];
  const drafts: { id: string; deps: string[]; kind: TaskKind; instruction: string }[] = [];

  for (const { value, line } of findTag(text, 'TASK')) {
    const drop = (reason: string) => dropped.push({ tag: 'TASK', line, text: value, reason });
    const fields = value.split('|').map((f) => f.trim());
    if (fields.length < 4) {
      drop(`needs 4 |-separated fields (id | deps= | kind= | instruction), found ${fields.length}`);
      continue;
    }
    const [id, depsField, kindField] = fields as [string, string, string];
    const instruction = fields.slice(3).join(' | ');
    const deps = /^deps\s*=/i.exec(depsField);
    if (!deps) {
      drop(`second field must be deps=..., got ${JSON.stringify(depsField)}`);
      continue;
    }
    const kindMatch = /^(?:kind\s*=\s*)?(\S*)$/i.exec(kindField);
    const kind = kindMatch?.[1]?.toLowerCase() ?? '';
    if (!KIND_SET.has(kind)) {
      const reason = `third field must be kind=${TASK_KINDS.join('|')}, got ${JSON.stringify(kindField)}`;
      drop(reason);
      unknownKinds.push({ tag: 'TASK', line, text: value, reason });
      continue;
    }
    const depIds = depsField
      .slice(deps[0].length)
      .split(',')
      .map((d) => d.trim())
      .filter(Boolean);
    drafts.push({ id, deps: depIds, kind: kind as TaskKind, instruction });
  }

  const caches = new Map<string, Partial<Record<CacheName, CacheGeometry>>>();
  for (const { value, line } of findTag(text, 'CACHES')) {
    const [target, entries] = splitOverride(value);
    if (target === undefined) {
      dropped.push({ tag: 'CACHES', line, text: value, reason: 'needs "<task id> | name=size,assoc ..."' });
      continue;
    }
    const merged = caches.get(target) ?? {};
    for (const entry of entries!.split(/\s+/).filter(Boolean)) {
      const m = /^([a-z0-9]+)=(\d+),(\d+)$/i.exec(entry);
      const name = m?.[1]?.toLowerCase();
      const size = Number(m?.[2]);
      const assoc = Number(m?.[3]);
      if (!m || !(CACHE_NAMES as readonly string[]).includes(name!) || !(size > 0) || !(assoc > 0)) {
        dropped.push({
          tag: 'CACHES',
          line,
          text: entry,
          reason: `not a cache override like l1d=8192,4 (names: ${CACHE_NAMES.join(', ')})`,
        });
        continue;
      }
      merged[name as CacheName] = [size, assoc];
    }
    caches.set(target, merged);
  }

  const defines = new Map<string, Set<string>>();
  for (const { value, line } of findTag(text, 'CONFIG_RTL')) {
    const [target, flags] = splitOverride(value);
    if (target === undefined) {
      dropped.push({ tag: 'CONFIG_RTL', line, text: value, reason: 'needs "<task id> | FLAG1 FLAG2 ..."' });
      continue;
    }
    const set = defines.get(target) ?? new Set<string>();
    for (const flag of flags!.split(/\s+/).filter(Boolean)) {
      if (DEFINE_RE.test(flag)) set.add(flag);
      else dropped.push({ tag: 'CONFIG_RTL', line, text: flag, reason: 'not an upper-snake-case define' });
    }
    defines.set(target, set);
  }

  const tasks: Task[] = [];
  for (const draft of drafts) {
    const cacheMap = caches.get(draft.id);
    const flagSet = defines.get(draft.id);
    const parsed = TaskSchema.safeParse({
      ...draft,
      caches: cacheMap && Object.keys(cacheMap).length ? cacheMap : null,
      config_rtl: flagSet && flagSet.size ? [...flagSet].sort() : null,
    });
    if (parsed.success) tasks.push(parsed.data);
    else
      dropped.push({
        tag: 'TASK',
        line: 0,
        text: draft.id,
        reason: parsed.error.issues.map((i) => i.message).join('; '),
      });
  }
  const known = new Set(tasks.map((t) => t.id));
  for (const [tag, overrides] of [
    ['CACHES', caches],
    ['CONFIG_RTL', defines],
  ] as const) {
    for (const target of overrides.keys()) {
      if (!known.has(target))
        dropped.push({ tag, line: 0, text: target, reason: `override for unknown task ${JSON.stringify(target)}` });
    }
  }
  return { tasks, dropped, unknownKinds };
}

/** `<task id> | rest` → [id, rest]; undefined when there is no pipe or no id. */
function splitOverride(value: string): [string, string] | [undefined] {
  const bar = value.indexOf('|');
  if (bar < 0) return [undefined];
  const id = value.slice(0, bar).trim();
  return id ? [id, value.slice(bar + 1)] : [undefined];
}

export interface Diagnosis {
  /** Lowercased; any label is kept, known or not. */
  readonly diagnosis: string;
  /** Verbatim; empty when the reply has no FIX line. */
  readonly fix: string;
}

/** Triage's DIAGNOSIS and FIX (last of each); undefined when there is no DIAGNOSIS line. */
export function parseDiagnosis(text: string): Diagnosis | undefined {
  const diagnosis = lastTag(text, 'DIAGNOSIS');
  if (!diagnosis) return undefined;
  return { diagnosis: diagnosis.toLowerCase(), fix: lastTag(text, 'FIX') ?? '' };
}

export interface PostMortemReply {
  readonly assessment: string;
  readonly explanation: string;
  readonly nextSteps: string;
}

/** The post-mortem's three lines; undefined without ASSESSMENT (the post-mortem is then dropped). */
export function parsePostMortem(text: string): PostMortemReply | undefined {
  const assessment = lastTag(text, 'ASSESSMENT');
  if (!assessment) return undefined;
  return {
    assessment: assessment.toLowerCase(),
    explanation: lastTag(text, 'EXPLANATION') ?? '',
    nextSteps: lastTag(text, 'NEXT_STEPS') ?? '',
  };
}
