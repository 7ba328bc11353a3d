/** A small seeded random source, so the scripted agent gives the same replies for the same seed. */
import { createHash } from 'node:crypto';

export type Random = () => number;

/** mulberry32: fast, 32-bit state, good enough for choosing mistakes. */
export function seeded(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed derived from any parts (run seed, call tag, phase). */
export function seedFrom(...parts: readonly (string | number | undefined)[]): number {
  return createHash('sha256')
    .update(parts.map((p) => String(p ?? '')).join('\u0000'))
    .digest()
    .readUInt32LE(0);
}
