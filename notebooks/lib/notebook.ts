/**
 * What a notebook gets from `await require('./lib/mace.cjs')()`: the analysis library and the figure
 * functions as they are, the database the notebook reads, and display helpers that send figures and
 * tables to Jupyter. Notebooks compute nothing of their own: every number comes from `analysis`.
 */
import { isAbsolute, resolve } from 'node:path';
import { createRequire } from 'node:module';
import * as analysis from '../../harness/analysis/index.ts';
import * as figures from '../../harness/figures/index.ts';
import { markdownTable, type Column } from '../../harness/format/table.ts';
import { PROJECT_ROOT } from '../../mace/paths.ts';

export { analysis, figures };

/** The reference database: what every committed notebook's outputs were computed from. */
export const REFERENCE_DB = 'results/quickstart.duckdb';

/**
 * The database a notebook reads: MACE_DB when set (`mace notebooks run --db PATH` sets it), else
 * `fallback` (the reference database). Relative paths are from the project root.
 */
export function database(fallback: string = REFERENCE_DB): string {
  const path = process.env.MACE_DB || fallback;
  return isAbsolute(path) ? path : resolve(PROJECT_ROOT, path);
}

/** A display_data message carrying several MIME types at once (tslab's own helpers send one each). */
type Bundle = Readonly<Record<string, unknown>>;
type WriteDisplayData = (message: { data: Bundle; metadata: Bundle; transient: Bundle }, update: boolean) => void;

function sendBundle(data: Bundle): void {
  // tslab (pinned at 1.0.22) keeps the kernel's display writer here while a cell runs.
  const jupyter = createRequire(import.meta.url)('tslab/dist/jupyter') as { lastWriteDisplayData?: WriteDisplayData };
  if (!jupyter.lastWriteDisplayData) throw new Error('not in a tslab cell: figures display only inside a notebook');
  jupyter.lastWriteDisplayData({ data, metadata: {}, transient: {} }, false);
}

/**
 * Show a figure inline: its SVG, with the Vega-Lite spec beside it for front ends that render it
 * (JupyterLab, VS Code), and its caption. A figure that was skipped shows why.
 */
export async function show(figure: figures.Figure | figures.Skipped): Promise<void> {
  if (figures.isSkipped(figure)) {
    sendBundle({ 'text/markdown': `_${figure.name}: not drawn, ${figure.skipped}._`, 'text/plain': figure.skipped });
    return;
  }
  const { svg } = await figures.renderSvg(figure);
  sendBundle({
    'application/vnd.vegalite.v5+json': figures.completeSpec(figure),
    'image/svg+xml': svg,
    'text/plain': figure.title,
  });
  sendBundle({ 'text/markdown': `_${figure.caption}_`, 'text/plain': figure.caption });
}

/** Show rows as a Markdown table (columns as harness/format/table.ts takes them; default: every key). */
export function table<T extends object>(rows: readonly T[], columns?: readonly Column<T>[]): void {
  const keys = columns ?? (Object.keys(rows[0] ?? {}).map((key) => ({ key })) as unknown as Column<T>[]);
  const text = rows.length ? markdownTable(rows, keys) : '_(no rows)_';
  sendBundle({ 'text/markdown': text, 'text/plain': text });
}

/** Show Markdown text. */
export function markdown(text: string): void {
  sendBundle({ 'text/markdown': text, 'text/plain': text });
}
