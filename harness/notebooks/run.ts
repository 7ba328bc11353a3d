/**
 * Running the tslab notebooks headless: nbconvert executes each one against a database with a
 * kernel spec of our own (so a moved checkout or a stale global `tslab install` cannot run the wrong
 * tslab), stops at the first cell error, and the executed outputs either replace the committed ones
 * or are compared with them.
 *
 * Jupyter comes from Debian (scripts/setup.sh installs it) and lives under /usr/bin/python3; the
 * `python3` first on PATH may be another one without it (pyenv), so it is never used.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../mace/paths.ts';

export const NOTEBOOKS_DIR = join(PROJECT_ROOT, 'notebooks');
/** Debian's Python, which has jupyter, nbconvert and ipykernel; MACE_JUPYTER_PYTHON overrides it. */
export const JUPYTER_PYTHON = process.env.MACE_JUPYTER_PYTHON || '/usr/bin/python3';
export const TSLAB_BINARY = join(PROJECT_ROOT, 'node_modules', '.bin', 'tslab');
/** Longest a single cell may run. */
const CELL_TIMEOUT_S = 300;

/** Every notebook, by path, in name order. */
export function notebookPaths(dir = NOTEBOOKS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ipynb'))
    .sort()
    .map((f) => join(dir, f));
}

/** The Python modules nbconvert needs that JUPYTER_PYTHON lacks (empty when all are there). */
export async function missingJupyter(): Promise<string[]> {
  const modules = ['nbconvert', 'nbclient', 'ipykernel', 'jupyter_client'];
  const result = await execa(
    JUPYTER_PYTHON,
    ['-c', `import importlib.util as u; print(' '.join(m for m in ${JSON.stringify(modules)} if not u.find_spec(m)))`],
    { reject: false },
  );
  if (result.exitCode !== 0) return [`${JUPYTER_PYTHON} itself (${result.stderr || result.shortMessage})`];
  return result.stdout.split(/\s+/).filter(Boolean);
}

/**
 * Register the tslab kernel with Jupyter (tslab's own installer, pointed at this checkout's tslab).
 * @example await installKernel({ user: true });
 */
export async function installKernel(options: { readonly user?: boolean } = {}): Promise<string> {
  const result = await execa(
    TSLAB_BINARY,
    ['install', `--python=${JUPYTER_PYTHON}`, `--binary=${TSLAB_BINARY}`, ...(options.user ? ['--user'] : [])],
    { all: true },
  );
  return result.all;
}

/** A notebook cell as nbformat 4 stores it (only what is compared or cleaned here). */
interface Cell {
  readonly cell_type: string;
  readonly id?: string;
  metadata: Record<string, unknown>;
  execution_count?: number | null;
  readonly outputs?: readonly Record<string, unknown>[];
}
interface Notebook {
  readonly cells: Cell[];
  metadata: Record<string, unknown>;
}

/** Drop what changes from one execution to the next (timings, the kernel's version line), so outputs diff cleanly. */
export function normalise(text: string): string {
  const notebook = JSON.parse(text) as Notebook;
  for (const cell of notebook.cells) {
    delete cell.metadata.execution;
    if (cell.cell_type === 'code') cell.execution_count = null;
  }
  notebook.metadata = { kernelspec: notebook.metadata.kernelspec, language_info: { name: 'typescript' } };
  return `${JSON.stringify(notebook, null, 1)}\n`;
}

/** The first cell whose outputs differ between two notebooks, or null when all agree. */
export function firstDifference(expected: string, actual: string): string | null {
  const a = (JSON.parse(expected) as Notebook).cells;
  const b = (JSON.parse(actual) as Notebook).cells;
  if (a.length !== b.length) return `${a.length} cells committed, ${b.length} after running`;
  for (let i = 0; i < a.length; i++) {
    if (JSON.stringify(a[i]!.outputs ?? []) !== JSON.stringify(b[i]!.outputs ?? [])) {
      return `cell ${a[i]!.id ?? i + 1}`;
    }
  }
  return null;
}

export interface NotebookResult {
  readonly notebook: string;
  readonly seconds: number;
  /** The executed notebook, normalised. */
  readonly executed: string;
}

/** Raised when a cell fails: names the notebook and carries nbconvert's account of the error. */
export class NotebookFailed extends Error {
  override name = 'NotebookFailed';
}

/** A private Jupyter data directory whose only kernel is this checkout's tslab. */
function kernelHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'mace-jupyter-'));
  const spec = join(home, 'kernels', 'tslab');
  mkdirSync(spec, { recursive: true });
  const kernel = {
    argv: [TSLAB_BINARY, 'kernel', '--config-path', '{connection_file}'],
    display_name: 'TypeScript',
    language: 'typescript',
  };
  writeFileSync(join(spec, 'kernel.json'), JSON.stringify(kernel));
  return home;
}

async function execute(path: string, db: string | undefined, home: string): Promise<NotebookResult> {
  const out = join(home, 'out');
  const started = performance.now();
  const result = await execa(
    JUPYTER_PYTHON,
    [
      '-m',
      'nbconvert',
      '--to',
      'notebook',
      '--execute',
      `--ExecutePreprocessor.timeout=${CELL_TIMEOUT_S}`,
      '--ExecutePreprocessor.kernel_name=tslab',
      '--output-dir',
      out,
      path,
    ],
    {
      reject: false,
      all: true,
      cwd: NOTEBOOKS_DIR,
      env: { JUPYTER_PATH: home, PYDEVD_DISABLE_FILE_VALIDATION: '1', ...(db ? { MACE_DB: db } : {}) },
    },
  );
  if (result.exitCode !== 0) {
    const lines = (result.all ?? '').split('\n').filter((l) => !/MissingIDFieldWarning|validate\(nb\)/.test(l));
    throw new NotebookFailed(`${basename(path)}: a cell failed\n${lines.slice(-25).join('\n')}`);
  }
  return {
    notebook: basename(path),
    seconds: (performance.now() - started) / 1000,
    executed: normalise(readFileSync(join(out, basename(path)), 'utf8')),
  };
}

export interface RunOptions {
  /** The database every notebook reads (MACE_DB); left out, each reads its own reference database. */
  readonly db?: string;
  readonly notebooks?: readonly string[];
  /** Notebooks run at once (each is its own kernel process). */
  readonly concurrency?: number;
  readonly onDone?: (result: NotebookResult) => void;
}

/**
 * Execute notebooks headless against a database (default: each notebook's reference database); the first cell
 * error rejects with NotebookFailed and starts no further notebook.
 * @example const results = await runNotebooks({ db: 'runs/ablations.duckdb' });
 */
export async function runNotebooks(options: RunOptions = {}): Promise<NotebookResult[]> {
  const db = options.db === undefined ? undefined : resolve(options.db);
  const queue = [...(options.notebooks ?? notebookPaths())];
  const results: NotebookResult[] = [];
  const home = kernelHome();
  let failure: unknown;
  const worker = async () => {
    for (let path = queue.shift(); path && failure === undefined; path = queue.shift()) {
      try {
        const result = await execute(path, db, home);
        results.push(result);
        options.onDone?.(result);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency ?? 2 }, worker));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  if (failure !== undefined) throw failure;
  return results.sort((a, b) => a.notebook.localeCompare(b.notebook));
}
