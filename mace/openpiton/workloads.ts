/**
 * The gate programs' integrity check. A folder of workloads carries a CHECKSUMS file in sha256sum
 * format (`<sha256>  <name>`, or `<sha256> *<name>`); a loop refuses to run when a program changed,
 * is missing from the list, or is listed but gone, so a result always names the programs it ran.
 */
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's gate programs and their CHECKSUMS, passed to sims as an extra diag directory. */
export const WORKLOADS_DIR = fileURLToPath(new URL('../../workloads', import.meta.url));

export const CHECKSUMS_FILE = 'CHECKSUMS';

/** Gate programs: assembly, C and the headers C versions may include. */
export const isProgram = (name: string): boolean => /\.(S|s|c|h)$/.test(name);

export interface ChecksumEntry {
  readonly sha256: string;
  readonly name: string;
}

/** Parse sha256sum's format; `#` lines and blank lines are skipped, anything else malformed is named. */
export function parseChecksums(text: string): { entries: ChecksumEntry[]; problems: string[] } {
  const entries: ChecksumEntry[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim() || line.startsWith('#')) return;
    const match = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line);
    if (match) entries.push({ sha256: match[1]!.toLowerCase(), name: match[2]! });
    else problems.push(`${CHECKSUMS_FILE} line ${i + 1} is not '<sha256>  <file>': ${JSON.stringify(line)}`);
  });
  return { entries, problems };
}

export const sha256Hex = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Every problem with a workloads folder against its CHECKSUMS: a program whose content changed, a
 * program not listed, a listed file that is gone, a malformed line. Empty when all is well.
 */
export async function verifyChecksums(dir: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(join(dir, CHECKSUMS_FILE), 'utf8');
  } catch {
    return [`no ${CHECKSUMS_FILE} file in ${dir}`];
  }
  const { entries, problems } = parseChecksums(text);
  const present = new Set((await readdir(dir)).filter(isProgram));
  const listed = new Set<string>();
  for (const { sha256, name } of entries) {
    listed.add(name);
    let actual: string;
    try {
      actual = sha256Hex(await readFile(join(dir, name)));
    } catch {
      problems.push(`${name} is listed in ${CHECKSUMS_FILE} but no longer exists`);
      continue;
    }
    if (actual !== sha256) problems.push(`${name} changed: its SHA-256 is ${actual}, ${CHECKSUMS_FILE} says ${sha256}`);
  }
  for (const name of [...present].sort())
    if (!listed.has(name)) problems.push(`${name} is not listed in ${CHECKSUMS_FILE}`);
  return problems;
}
