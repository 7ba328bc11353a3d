/** Commander argument parsers that fail as usage errors (exit code 2) naming what is accepted. */
import { InvalidArgumentError } from 'commander';

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive integer.');
  return n;
}
