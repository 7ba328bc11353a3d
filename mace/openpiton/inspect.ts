/**
 * Read-only looks into one simulation's run directory, for triage: grep its logs, collect its small
 * text files, compare its sim.log with a reference log, and dump the built program's symbols. Each
 * returns text for an LLM to read and never throws: a refusal or failure is a string starting with
 * `ERROR: `, and missing data comes back as a note in parentheses. Nothing outside the run directory
 * is read: absolute paths, `..` and symbolic links that lead out are refused.
 */
import { createReadStream, type Dirent } from 'node:fs';
import { lstat, readFile, readdir, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { execa } from 'execa';
import { firstDivergence } from './parse.ts';

/** The logs grep may read, by the names triage uses for them. */
export const GREP_SOURCES = { fake_uart: 'fake_uart.log', sim_log: 'sim.log', status_log: 'status.log' } as const;
export type GrepSource = keyof typeof GREP_SOURCES;

export const MAX_PATTERN_CHARS = 256;
/** Only this much of each line is searched (and shown): a runaway line cannot stall a regex. */
export const MAX_LINE_CHARS = 4000;
export const DEFAULT_COLLECT_BYTES = 200_000;
const OBJDUMP_TIMEOUT_MS = 30_000;

const error = (message: string) => `ERROR: ${message}`;
const quoted = (text: string) => `'${text}'`;

/** Catch anything unexpected so a tool answers with text instead of throwing. */
async function answer(work: () => Promise<string>): Promise<string> {
  try {
    return await work();
  } catch (caught) {
    return error((caught as Error).message ?? String(caught));
  }
}

/** True when `target` is `base` or inside it. */
function within(base: string, target: string): boolean {
  const rel = relative(base, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real path of `rel` inside the run directory, or an error text when it is missing or leads out. */
async function confined(
  runDir: string,
  rel: string,
): Promise<{ path: string } | { missing: true } | { refused: string }> {
  if (isAbsolute(rel) || rel.split(/[\\/]/).includes('..'))
    return { refused: `${quoted(rel)} must be a path inside the run directory` };
  const realRun = await realpath(runDir);
  const path = join(realRun, rel);
  try {
    await lstat(path);
  } catch {
    return { missing: true };
  }
  const real = await realpath(path).catch(() => null);
  if (real === null) return { missing: true };
  if (!within(realRun, real)) return { refused: `${quoted(rel)} links outside the run directory` };
  return { path: real };
}

/**
 * A group that itself repeats, repeated: `(a+)+`, `(\w*\s?)*`, `(x|y+){2,}`. Such patterns can take
 * exponential time on a long line.
 */
export function hasNestedQuantifier(pattern: string): boolean {
  const stack: boolean[] = [];
  let i = 0;
  const quantifierAt = (at: number) =>
    pattern[at] === '*' || pattern[at] === '+' || (pattern[at] === '{' && /^\{\d*,?\d*\}/.test(pattern.slice(at)));
  const markQuantified = () => {
    if (stack.length) stack[stack.length - 1] = true;
  };
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') i += 2;
    else if (c === '[') {
      i++;
      if (pattern[i] === '^') i++;
      if (pattern[i] === ']') i++;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '(') {
      stack.push(false);
      i++;
    } else if (c === ')') {
      const repeatsInside = stack.pop() ?? false;
      i++;
      if (quantifierAt(i)) {
        if (repeatsInside) return true;
        markQuantified();
      } else if (repeatsInside) markQuantified();
    } else {
      if (quantifierAt(i)) markQuantified();
      i++;
    }
  }
  return false;
}

/** Compile a (Python-flavoured) pattern: a leading `(?i)` becomes the `i` flag. */
function compile(pattern: string): RegExp {
  const insensitive = /^\(\?i\)/.test(pattern);
  return new RegExp(insensitive ? pattern.slice(4) : pattern, insensitive ? 'i' : '');
}

export interface GrepOptions {
  /** Lines shown before and after each match. */
  readonly context?: number;
  /** At most this many lines in the answer. */
  readonly maxLines?: number;
}

/**
 * Lines of one of the run's logs that match `pattern`, with context, grep style: `N:` marks a matching
 * line, `N-` a context line, and `--` separates groups that are not adjacent.
 */
export function grepRunLog(
  runDir: string,
  source: string,
  pattern: string,
  options: GrepOptions = {},
): Promise<string> {
  return answer(async () => {
    const names = Object.keys(GREP_SOURCES).sort();
    if (!Object.hasOwn(GREP_SOURCES, source))
      return error(`source must be one of [${names.map(quoted).join(', ')}], got ${quoted(source)}`);
    if (pattern.length > MAX_PATTERN_CHARS)
      return error(`pattern is ${pattern.length} characters; keep it under ${MAX_PATTERN_CHARS}`);
    if (hasNestedQuantifier(pattern))
      return error(
        `pattern ${quoted(pattern)} repeats a group that itself repeats, which can run for minutes; use a simpler pattern`,
      );
    let re: RegExp;
    try {
      re = compile(pattern);
    } catch (caught) {
      return error(`bad regex ${quoted(pattern)}: ${(caught as Error).message}`);
    }
    const file = GREP_SOURCES[source as GrepSource];
    const where = await confined(runDir, file);
    if ('refused' in where) return error(where.refused);
    if ('missing' in where) return `(no ${file} in this run)`;

    const context = Math.max(0, options.context ?? 3);
    const maxLines = Math.max(1, options.maxLines ?? 40);
    const out: string[] = [];
    const before: { n: number; text: string }[] = [];
    let lastShown = 0;
    let after = 0;
    let matches = 0;
    let capped = false;
    const show = (n: number, text: string, mark: ':' | '-') => {
      if (out.length >= maxLines) return void (capped = true);
      if (lastShown && n > lastShown + 1) out.push('--');
      out.push(`${n}${mark}${text}`);
      lastShown = n;
    };
    const lines = createInterface({ input: createReadStream(where.path, { encoding: 'utf8' }), crlfDelay: Infinity });
    let n = 0;
    for await (const full of lines) {
      n++;
      const text = full.length > MAX_LINE_CHARS ? full.slice(0, MAX_LINE_CHARS) : full;
      if (re.test(text)) {
        matches++;
        for (const held of before) if (held.n > lastShown) show(held.n, held.text, '-');
        before.length = 0;
        show(n, text, ':');
        after = context;
      } else if (after > 0) {
        after--;
        show(n, text, '-');
      } else {
        before.push({ n, text });
        if (before.length > context) before.shift();
      }
      if (capped) {
        lines.close();
        break;
      }
    }
    if (matches === 0) return `(no lines match ${quoted(pattern)})`;
    if (capped) out.push(`(stopped at ${maxLines} lines; narrow the pattern or lower the context)`);
    return out.join('\n');
  });
}

/** Turn a glob (`*`, `?`, `[...]`, `**`) into a regular expression over `/`-separated paths. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        const body = glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        out += `[${body}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

interface Found {
  readonly rel: string;
  readonly path: string;
}

/** Every file under `dir`, without following directory links. */
async function walk(dir: string, prefix = ''): Promise<Found[]> {
  const entries: Dirent[] = await readdir(dir, { withFileTypes: true });
  const found: Found[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await walk(path, rel)));
    else if (entry.isFile() || entry.isSymbolicLink()) found.push({ rel, path });
  }
  return found;
}

const looksBinary = (bytes: Buffer) => bytes.subarray(0, 8192).includes(0);

/**
 * The run directory's text files that match `pattern` (a glob; without a `/` it matches file names at
 * any depth), each under a `--- <path> ---` header. Files over `maxBytes` are listed as skipped
 * (0 lists every match; null means no cap).
 */
export function collectRunFiles(
  runDir: string,
  pattern = '*',
  maxBytes: number | null = DEFAULT_COLLECT_BYTES,
): Promise<string> {
  return answer(async () => {
    if (isAbsolute(pattern) || pattern.split(/[\\/]/).includes('..'))
      return error(`pattern ${quoted(pattern)} must stay inside the run directory (no absolute path, no '..')`);
    const re = globToRegExp(pattern);
    const byName = !pattern.includes('/');
    const realRun = await realpath(runDir);
    const matches = (await walk(realRun)).filter((f) => re.test(byName ? basename(f.rel) : f.rel));
    if (matches.length === 0) return `(no files under ${runDir} match ${quoted(pattern)})`;
    const parts = [`${matches.length} file(s):`];
    for (const file of matches) {
      const real = await realpath(file.path).catch(() => null);
      if (real === null || !within(realRun, real)) {
        parts.push(`(skipped ${file.rel}: it links outside the run directory)`);
        continue;
      }
      const { size } = await stat(real);
      if (maxBytes !== null && size > maxBytes) {
        parts.push(`(skipped ${file.rel}: ${size} bytes, over the ${maxBytes}-byte cap)`);
        continue;
      }
      const bytes = await readFile(real);
      if (looksBinary(bytes)) parts.push(`(skipped ${file.rel}: binary, ${size} bytes)`);
      else parts.push(`--- ${file.rel} ---\n${bytes.toString('utf8')}`);
    }
    return parts.join('\n');
  });
}

/** The first `count` lines of a file, streamed (a sim.log can be far longer than the reference). */
async function headLines(path: string, count: number): Promise<string[]> {
  const lines: string[] = [];
  if (count <= 0) return lines;
  const reader = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of reader) {
    lines.push(line);
    if (lines.length >= count) {
      reader.close();
      break;
    }
  }
  return lines;
}

/**
 * Where this run's sim.log first departs from a reference log `name` kept directly in
 * `referenceDir` (for example a passing run's sim.log), with up to `maxContext` lines before it.
 */
export function compareToReference(
  runDir: string,
  referenceDir: string,
  name: string,
  maxContext = 5,
): Promise<string> {
  return answer(async () => {
    const available = (await readdir(referenceDir)).filter((n) => n.endsWith('.log')).sort();
    if (name !== basename(name) || !available.includes(name))
      return error(`unknown reference ${quoted(name)}; available: [${available.map(quoted).join(', ')}]`);
    const reference = (await readFile(join(referenceDir, name), 'utf8')).split(/\r?\n/);
    if (reference.at(-1) === '') reference.pop();
    const where = await confined(runDir, 'sim.log');
    if ('refused' in where) return error(where.refused);
    if ('missing' in where) return '(no sim.log in this run)';
    // One line more than the reference: enough to tell a prefix from a difference.
    const actual = await headLines(where.path, reference.length + 1);
    const divergence = firstDivergence(reference.join('\n'), actual.join('\n'));
    if (divergence === null)
      return `identical to ${name} through all ${Math.min(reference.length, actual.length)} shared line(s)`;
    const at = divergence.line;
    const start = Math.max(1, at - maxContext);
    return [
      `diverges from ${name} at line ${at}:`,
      `--- ${name} (lines ${start}-${at}) ---`,
      ...reference.slice(start - 1, at),
      `--- this run's sim.log (lines ${start}-${at}) ---`,
      ...actual.slice(start - 1, at),
    ].join('\n');
  });
}

/** objdump for RISC-V when the cross binutils are installed, else the host's (it reads any ELF header). */
async function findObjdump(preferred?: string): Promise<string | null> {
  for (const tool of preferred ? [preferred] : ['riscv64-unknown-elf-objdump', 'objdump']) {
    const found = await execa('bash', ['-c', `command -v ${tool}`], { reject: false });
    if (found.exitCode === 0 && found.stdout.trim()) return found.stdout.trim();
  }
  return null;
}

/**
 * The built program's file header and symbol table (`objdump -f`, `objdump -t` on diag.exe) and the
 * symbol.tbl sims made from it. Raw data, not a verdict: the testbench's good and bad trap addresses
 * are the program's `pass` and `fail` symbols.
 */
export function symbolCheck(runDir: string, options: { objdump?: string } = {}): Promise<string> {
  return answer(async () => {
    const exe = await confined(runDir, 'diag.exe');
    if ('refused' in exe) return error(exe.refused);
    const blocks: string[] = [];
    if ('missing' in exe) blocks.push('--- objdump -f diag.exe ---', '(no diag.exe in this run directory)');
    else {
      const objdump = await findObjdump(options.objdump);
      if (objdump === null) return error(`'${options.objdump ?? 'objdump'}' was not found on PATH`);
      for (const [flag, title] of [
        ['-f', 'objdump -f diag.exe'],
        ['-t', 'objdump -t diag.exe (symbol table)'],
      ] as const) {
        const result = await execa(objdump, [flag, exe.path], { reject: false, timeout: OBJDUMP_TIMEOUT_MS });
        if (result.exitCode !== 0)
          return error(
            `'objdump ${flag} ${exe.path}' failed (exit ${result.exitCode ?? result.signal}): ${String(result.stderr).trim()}`,
          );
        blocks.push(`--- ${title} ---`, String(result.stdout).trim());
      }
    }
    const table = await confined(runDir, 'symbol.tbl');
    blocks.push("--- this run's own symbol.tbl ---");
    if ('refused' in table) blocks.push(error(table.refused));
    else if ('missing' in table) blocks.push('(not found in this run directory)');
    else blocks.push((await readFile(table.path, 'utf8')).trim());
    return blocks.join('\n');
  });
}
