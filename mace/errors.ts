import type { z } from 'zod';
import { formatIssues } from './openpiton/issues.ts';

/**
 * Something the user can fix: a bad flag, file or field. The CLI prints the message without a stack
 * and exits with code 2. The message names the file, field or line at fault and what is accepted.
 */
export class InputError extends Error {
  override name = 'InputError';
}

/** Parse with a zod schema, turning a failure into an InputError that names every field at fault. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new InputError(`invalid ${what}:\n${indent(formatIssues(result.error, prefix))}`);
}

export function indent(text: string, by = '  '): string {
  return text
    .split('\n')
    .map((line) => by + line)
    .join('\n');
}
