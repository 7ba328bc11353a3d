import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  JUPYTER_PYTHON,
  NOTEBOOKS_DIR,
  NotebookFailed,
  firstDifference,
  installKernel,
  missingJupyter,
  normalise,
  notebookPaths,
  runNotebooks,
} from '../../notebooks/run.ts';
import { CommandFailed } from '../io.ts';
import type { CommandContext } from '../main.ts';

interface RunFlags {
  readonly db?: string;
  readonly out?: string;
  readonly check?: boolean;
  readonly only?: string;
}

export function registerNotebooks(program: Command, ctx: CommandContext): void {
  const notebooks = program
    .command('notebooks')
    .description('Set up and run the tslab notebooks in notebooks/ (analysis and figures of a results database)');
  notebooks
    .command('setup')
    .description("Register the tslab (TypeScript) kernel with Debian's Jupyter and say how to open the notebooks")
    .option('--user', 'register it for this user only (default: system-wide when root)')
    .addHelpText(
      'after',
      `
Examples:
  $ mace notebooks setup
  $ mace notebooks setup --user`,
    )
    .action((flags: { user?: boolean }) => setup(flags, ctx));
  notebooks
    .command('run')
    .description(
      'Execute every notebook headless (nbconvert); stops at the first cell error. Without --db each reads ' +
        'its reference database (results/codesign.duckdb for codesign, results/quickstart.duckdb for the rest) ' +
        'and the outputs replace the committed ones, unless --check or --out',
    )
    .option('--db <path>', 'the database every notebook reads (default: each its reference database)')
    .option('--out <dir>', 'write the executed notebooks here instead of over the committed ones')
    .option('--check', 'write nothing; fail if any output differs from the committed notebook')
    .option('--only <names>', 'comma-separated notebook names (e.g. overview,costs)')
    .addHelpText(
      'after',
      `
Examples:
  $ mace notebooks run
  $ mace notebooks run --check
  $ mace notebooks run --db runs/ablations.duckdb --out runs/notebooks`,
    )
    .action((flags: RunFlags) => run(flags, ctx));
}

async function requireJupyter(): Promise<void> {
  const missing = await missingJupyter();
  if (missing.length) {
    throw new CommandFailed(
      `Jupyter is missing from ${JUPYTER_PYTHON} (${missing.join(', ')}): run \`bash scripts/setup.sh\`, ` +
        "which installs Debian's jupyter-notebook, jupyter-nbconvert, python3-nbclient and python3-ipykernel",
    );
  }
}

async function setup(flags: { user?: boolean }, ctx: CommandContext): Promise<void> {
  await requireJupyter();
  ctx.io.out(await installKernel({ user: flags.user }));
  ctx.io.out(
    [
      '',
      'The TypeScript kernel is registered. Open the notebooks with:',
      `  jupyter notebook ${NOTEBOOKS_DIR}`,
      'Each reads its reference database under results/ unless MACE_DB names another database, e.g.',
      `  MACE_DB=runs/ablations.duckdb jupyter notebook ${NOTEBOOKS_DIR}`,
      'Figures show as SVG everywhere; JupyterLab and VS Code also render their Vega-Lite specs.',
    ].join('\n'),
  );
}

async function run(flags: RunFlags, ctx: CommandContext): Promise<void> {
  if (flags.check && (flags.db || flags.out)) {
    throw new CommandFailed(
      '--check compares with the committed outputs, which come from the reference database: drop --db and --out',
    );
  }
  await requireJupyter();
  const all = notebookPaths();
  const wanted = flags.only?.split(',').map((s) => s.trim());
  const paths = wanted ? all.filter((p) => wanted.some((w) => p.endsWith(`/${w}.ipynb`))) : all;
  const unknown = wanted?.filter((w) => !all.some((p) => p.endsWith(`/${w}.ipynb`))) ?? [];
  if (unknown.length || !paths.length) {
    throw new CommandFailed(`no notebook named ${unknown.join(', ') || '(none)'} in ${NOTEBOOKS_DIR}`);
  }
  const db = flags.db === undefined ? undefined : resolve(flags.db);
  const started = performance.now();
  let results;
  try {
    results = await runNotebooks({
      db,
      notebooks: paths,
      onDone: (r) => ctx.io.out(`${r.notebook}: ran in ${r.seconds.toFixed(1)} s`),
    });
  } catch (error) {
    if (error instanceof NotebookFailed) throw new CommandFailed(error.message);
    throw error;
  }
  const stale: string[] = [];
  for (const result of results) {
    const committedPath = join(NOTEBOOKS_DIR, result.notebook);
    if (flags.check) {
      const difference = firstDifference(normalise(readFileSync(committedPath, 'utf8')), result.executed);
      if (difference) stale.push(`${result.notebook} (${difference})`);
    } else if (flags.out) {
      mkdirSync(flags.out, { recursive: true });
      writeFileSync(join(flags.out, result.notebook), result.executed);
    } else if (!db) {
      writeFileSync(committedPath, result.executed);
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (stale.length) {
    throw new CommandFailed(
      `outputs out of step with the code in ${stale.join(', ')}: run \`npx mace notebooks run\` and commit the notebooks`,
    );
  }
  ctx.io.out(
    `${results.length} notebook(s) ran against ${db ?? 'their reference databases'} in ${seconds} s` +
      (flags.check ? '; outputs match the committed ones' : flags.out ? `; written to ${flags.out}` : ''),
  );
}
