/**
 * The gate programs' checksums: a run refuses to start when a program changed, is missing from
 * CHECKSUMS, or is listed but gone, so every result is tied to known workloads.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const PROGRAM = /\.(?:S|s|c)$/;

/** Problems with `dir`'s CHECKSUMS (sha256sum format, text or binary mode, # comments); empty when all is well. */
export function verifyChecksums(dir: string): string[] {
  const file = join(dir, 'CHECKSUMS');
  if (!existsSync(file)) return [`${file} is missing`];
  const listed = new Map<string, string>();
  const problems: string[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim() || line.trimStart().startsWith('#')) return;
      const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line.trim());
      if (!m) problems.push(`${file}:${i + 1}: not a sha256sum line`);
      else listed.set(m[2]!, m[1]!);
    });
  for (const name of readdirSync(dir)
    .filter((n) => PROGRAM.test(n))
    .sort()) {
    const digest = createHash('sha256')
      .update(readFileSync(join(dir, name)))
      .digest('hex');
    const expected = listed.get(name);
    if (expected === undefined) problems.push(`${name} is not listed in CHECKSUMS`);
    else if (expected !== digest) problems.push(`${name} changed: sha256 ${digest}, CHECKSUMS says ${expected}`);
    listed.delete(name);
  }
  for (const name of listed.keys()) problems.push(`${name} is listed in CHECKSUMS but no longer exists`);
  return problems;
}
