/**
 * Read-only questions about a checkout's source tree that are answered before any build: which
 * upper-snake-case words its design and tool files mention (the plan check's define index), and
 * whether a module path names an RTL source in it.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { genericTileProblem } from './generic-tile.ts';

/** Where OpenPiton's defines are used or declared. */
export const DEFINE_INDEX_DIRS = ['piton/design', 'piton/verif', 'piton/tools/src', 'piton/tools/verilator'] as const;

const TEXT_EXTENSIONS = new Set([
  '.v',
  '.sv',
  '.vh',
  '.svh',
  '.h',
  '.pyv',
  '.py',
  '.pl',
  '.pm',
  '.config',
  '.flist',
  '.f',
  '.c',
  '.cc',
  '.cpp',
  '.hpp',
  '.tcl',
  '.xml',
  '.txt',
  '.md',
  '.s',
  '.S',
  '.mk',
  '.json',
  '.yaml',
  '.yml',
  '.sh',
  '.bash',
  '',
]);
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const WORD = /\b[A-Z][A-Z0-9_]*\b/g;

const indexes = new Map<string, ReadonlySet<string>>();

/** The upper-snake-case words of the checkout's text files; built once per checkout per process. */
export function defineIndex(root: string): ReadonlySet<string> {
  const key = resolve(root);
  let index = indexes.get(key);
  if (!index) {
    const words = new Set<string>();
    for (const dir of DEFINE_INDEX_DIRS) walk(join(key, dir), words);
    index = words;
    indexes.set(key, index);
  }
  return index;
}

/** Forget cached indexes (after a checkout is re-initialised). */
export function clearDefineIndexes(): void {
  indexes.clear();
}

function walk(dir: string, words: Set<string>): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries) {
    if (name === '.git' || name === 'node_modules') continue;
    const path = join(dir, name);
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isDirectory()) walk(path, words);
    else if (stat.isFile() && stat.size <= MAX_FILE_BYTES && TEXT_EXTENSIONS.has(extname(name))) {
      const text = readFileSync(path, 'latin1');
      if (text.includes('\0')) continue;
      for (const word of text.match(WORD) ?? []) words.add(word);
    }
  }
}

const RTL_SOURCE = /\.(?:v|sv|pyv)$/;

/**
 * Why a unit_test module path cannot be used, or undefined when it names an RTL source in the
 * checkout. The path is relative to the checkout root.
 */
export function modulePathProblem(root: string, modulePath: string): string | undefined {
  const path = modulePath.trim();
  if (!path) return 'is empty';
  if (isAbsolute(path)) return 'is absolute; give it relative to the checkout root';
  const base = resolve(root);
  const full = resolve(base, path);
  if (full !== base && !full.startsWith(base + sep)) return 'resolves outside the checkout';
  if (!RTL_SOURCE.test(path)) return 'is not an RTL source (.v, .sv, .pyv)';
  try {
    if (!statSync(full).isFile()) return 'does not exist in the checkout';
    const real = realpathSync(full);
    if (relative(realpathSync(base), real).startsWith('..')) return 'resolves outside the checkout';
  } catch {
    return 'does not exist in the checkout';
  }
  return undefined;
}

/** Where each core's RTL lives in a checkout; a core whose folder is missing or empty cannot be built. */
const CORE_DIRS: Readonly<Record<string, string>> = {
  ariane: 'piton/design/chip/tile/ariane',
  pico: 'piton/design/chip/tile/pico',
  sparc: 'piton/design/chip/tile/sparc',
};

/** Why the checkout cannot build `core`, or undefined when it can (generic: whether it has a Generic Tile). */
export function coreSupportProblem(root: string, core: string): string | undefined {
  if (core === 'generic') return genericTileProblem(root);
  const dir = CORE_DIRS[core];
  if (!dir) return `no known RTL folder for core ${core}`;
  try {
    if (readdirSync(join(root, dir)).length === 0)
      return `${dir} is empty (for Ariane: run git submodule update --init ${dir})`;
  } catch {
    return `${dir} does not exist in ${root}`;
  }
  return undefined;
}
