/**
 * What an objective says about the build. Objectives are prose, but they can name an RTL define a
 * build needs ("That task needs the CONFIG_DISABLE_BIST_CLEAR RTL define."); fixed code then applies
 * it instead of asking the planner again.
 */
import { DEFINE_RE } from './openpiton/geometry.ts';

/** Upper-snake-case words with an underscore: RTL defines, not acronyms such as RTL or PASS. */
const DEFINE_WORD = /\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/g;
const NEED = /\b(?:needs?|needed|requires?|required|must\s+(?:have|use|include|set|carry|define|add)|depends?\s+on)\b/i;

function sentences(text: string): string[] {
  return text.split(/(?<=[.!?;])\s+|\n+/).filter((s) => s.trim());
}

/** Every define the objective names anywhere; the plan check never strips these. */
export function namedDefines(objective: string): string[] {
  return [...new Set(objective.match(DEFINE_WORD) ?? [])].filter((d) => DEFINE_RE.test(d)).sort();
}

/** Defines named in a sentence of the objective that says a build needs them. */
export function requiredDefines(objective: string): string[] {
  const out = new Set<string>();
  for (const sentence of sentences(objective)) {
    if (!NEED.test(sentence)) continue;
    for (const define of sentence.match(DEFINE_WORD) ?? []) if (DEFINE_RE.test(define)) out.add(define);
  }
  return [...out].sort();
}
