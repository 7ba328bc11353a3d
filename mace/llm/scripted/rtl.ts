/**
 * The scripted agent's RTL repair: it reads the file the evidence points at (or the files the
 * instruction names) through the edit tools, looks for an identifier that is a near miss of one the
 * file really uses, and replaces it, as an engineer fixing a typo that breaks the build would.
 */
import type { LlmTool, ToolCallRecord } from '../types.ts';
import { toolUse } from './tool-use.ts';

const IDENT = /\b[A-Za-z_][A-Za-z0-9_]*\b/g;
const SOURCE_REF = /(piton\/design\/[\w./-]+\.(?:sv|v|pyv|vh|svh))(?::(\d+)|\s+line\s+(\d+))?/g;

export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

interface Fix {
  readonly line: string;
  readonly wrong: string;
  readonly right: string;
}

/**
 * A typo on `lineNo` (or anywhere, when no line is known): an identifier used once whose closest
 * other identifier, at most two edits away, is used several times.
 */
export function findTypo(content: string, lineNo: number | undefined, hint: string | undefined): Fix | undefined {
  const code = (line: string) => line.replace(/\/\/.*$/, '');
  const lines = content.split('\n');
  const counts = new Map<string, number>();
  for (const line of lines) for (const word of code(line).match(IDENT) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  // A name the compiler could not find may be replaced by any declared name; a guess needs a name used twice.
  const minUses = hint ? 1 : 2;
  const candidates = lineNo ? [lines[lineNo - 1] ?? ''] : lines;
  for (const line of candidates) {
    const words = [...new Set(code(line).match(IDENT) ?? [])].filter((w) => (hint ? w === hint : counts.get(w) === 1));
    for (const wrong of words) {
      let best: string | undefined;
      let bestDistance = 3;
      for (const [word, count] of counts) {
        if (word === wrong || count < minUses) continue;
        const d = editDistance(wrong, word);
        if (d < bestDistance || (d === bestDistance && best !== undefined && word.length > best.length)) {
          best = word;
          bestDistance = d;
        }
      }
      if (best) return { line, wrong, right: best };
    }
  }
  return undefined;
}

export async function rtlRepair(
  prompt: string,
  tools: readonly LlmTool[],
): Promise<{ text: string; toolCalls: ToolCallRecord[] }> {
  const { use, calls: toolCalls } = toolUse(tools);
  const refs = [...prompt.matchAll(SOURCE_REF)].map((m) => ({ path: m[1]!, line: Number(m[2] ?? m[3]) || undefined }));
  if (!refs.length) {
    // No file named: look through the RTL folders the instruction points at.
    for (const folder of new Set([...prompt.matchAll(/piton\/design\/[\w/]+\/rtl\b/g)].map((m) => m[0]))) {
      const listing = await use('list_files', { folder });
      if (listing.startsWith('ERROR:')) continue;
      for (const name of listing
        .split('\n')
        .filter((n) => /\.(?:sv|v)$/.test(n))
        .slice(0, 12))
        refs.push({ path: `${folder}/${name}`, line: undefined });
    }
  }
  const hint =
    /(?:not found in structure|find definition of variable|Can't find definition of[^:]*):?\s*'([A-Za-z_]\w*)'|'([A-Za-z_]\w*)'\s*not found/i.exec(
      prompt,
    );
  const wrongHint = hint?.[1] ?? hint?.[2];
  const seen = new Set<string>();
  for (const ref of refs.reverse()) {
    if (seen.has(`${ref.path}:${ref.line}`)) continue;
    seen.add(`${ref.path}:${ref.line}`);
    const content = await use('read_file', { path: ref.path });
    if (content.startsWith('ERROR:')) continue;
    const fix = findTypo(content, ref.line, wrongHint) ?? findTypo(content, undefined, undefined);
    if (!fix) continue;
    const result = await use('replace_in_file', {
      path: ref.path,
      old: fix.line,
      new: fix.line.replace(new RegExp(`\\b${fix.wrong}\\b`), fix.right),
    });
    if (result.startsWith('OK')) {
      return {
        text: `In ${ref.path}, \`${fix.wrong}\` is a misspelling of \`${fix.right}\`, which the file uses elsewhere; I replaced it.`,
        toolCalls,
      };
    }
  }
  return { text: 'I could not find the faulty line from the evidence given; no file was changed.', toolCalls };
}
