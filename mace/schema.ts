/**
 * Building blocks of the project's zod schemas: number rules whose messages name the field, strict
 * objects whose unknown-key message lists the accepted keys, and enums that list their values.
 * Imports nothing but zod and the shared message helper, so every schema module can use them.
 */
import { z } from 'zod';
import { shown } from './openpiton/issues.ts';

/**
 * A zod rule for a number field: `${what} must be ${rule}, got ...` when `ok` refuses the value.
 * `json` states the same rule in JSON Schema, which a transform cannot show by itself (suite schemas).
 */
const numberRule = (ok: (n: number) => boolean, rule: string, json: Record<string, unknown>) => (what: string) =>
  z
    .unknown()
    .transform((value, ctx) => {
      if (typeof value === 'number' && Number.isFinite(value) && ok(value)) return value;
      ctx.addIssue({ code: 'custom', message: `${what} must be ${rule}, got ${shown(value)}` });
      return z.NEVER;
    })
    .meta(json);

export const positiveInt = numberRule((n) => Number.isInteger(n) && n > 0, 'a positive integer', { type: 'integer', minimum: 1 });
export const positiveNumber = numberRule((n) => n > 0, 'a positive number', { type: 'number', exclusiveMinimum: 0 });
export const nonNegativeInt = numberRule((n) => Number.isInteger(n) && n >= 0, 'an integer >= 0', { type: 'integer', minimum: 0 });
export const nonNegativeNumber = numberRule((n) => n >= 0, 'a number >= 0', { type: 'number', minimum: 0 });

/** A strict object whose unknown-key message lists the keys it accepts. */
export function strictObject<T extends z.core.$ZodLooseShape>(shape: T) {
  const accepted = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `unknown key${iss.keys.length > 1 ? 's' : ''} ${iss.keys.map((k) => JSON.stringify(k)).join(', ')}; accepted: ${accepted}`
        : undefined,
  });
}

export const oneOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, { error: (iss) => `${what} must be one of ${values.join(', ')}; got ${shown(iss.input)}` });
