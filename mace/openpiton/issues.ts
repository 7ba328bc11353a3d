import type { z } from 'zod';

/**
 * One line per zod issue, led by the dotted path of the field at fault:
 * `budget.max_iterations: must be a positive integer, got 0`.
 * Lives here so the adapter (which imports nothing from the rest of mace/) and mace/ share it.
 */
export function formatIssues(error: z.ZodError, prefix = ''): string {
  return error.issues.map((issue) => `${fieldPath(issue.path, prefix) || '(value)'}: ${issue.message}`).join('\n');
}

export function fieldPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** A short rendering of a rejected value for an error message. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'nothing';
  try {
    const text = JSON.stringify(value);
    return text.length > 60 ? `${text.slice(0, 57)}...` : text;
  } catch {
    return String(value);
  }
}
