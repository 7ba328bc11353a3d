/**
 * Every figure by name, built from what the analysis library read out of the databases; and the
 * writer that saves each with its spec and its data beside it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  analyseFiles,
  chooseReplayCheckout,
  planSavings,
  runTimeline,
  showcaseRun,
  type Analysis,
  type AnalysisOptions,
  type PlanSavings,
  type RunTimeline,
} from '../analysis/index.ts';
import { ablationFigure, recoveryFigure } from './comparisons.ts';
import { codesignFigure, codesignParetoFigure } from './codesign.ts';
import { completeSpec, type Figure, type Skipped } from './figure.ts';
import { costFigure, passRateFigure, timeToPassFigure } from './methods.ts';
import { renderFigure, type FigureFormat } from './render.ts';
import { planReplayFigure } from './replay.ts';
import { timelineFigure } from './run.ts';

/** What the figures are drawn from. */
export interface FigureInputs {
  readonly analysis: Analysis;
  /** The run the timeline shows (see showcaseRun), if any. */
  readonly timeline: RunTimeline | undefined;
  /** What the plan check and the fast path saved per run, from plan replay (see planSavings). */
  readonly planSavings: PlanSavings;
}

/** Which run the timeline shows and which checkout plan replay reads. */
export interface InputsOptions {
  /** The timeline's run (default: showcaseRun's choice). */
  readonly runId?: string;
  /** The OpenPiton checkout plan replay reads (default: the loop's offline checkout). */
  readonly pitonRoot?: string;
}

export const FIGURES = {
  pass_rate: (i: FigureInputs) => passRateFigure(i.analysis),
  time_to_pass: (i: FigureInputs) => timeToPassFigure(i.analysis),
  ablations: (i: FigureInputs) => ablationFigure(i.analysis),
  recovery: (i: FigureInputs) => recoveryFigure(i.analysis),
  cost: (i: FigureInputs) => costFigure(i.analysis),
  plan_replay: (i: FigureInputs) => planReplayFigure(i.analysis, i.planSavings),
  timeline: (i: FigureInputs) => timelineFigure(i.timeline),
  codesign: (i: FigureInputs) => codesignFigure(i.analysis),
  codesign_pareto: (i: FigureInputs) => codesignParetoFigure(i.analysis),
} as const satisfies Record<string, (inputs: FigureInputs) => Figure | Skipped>;

export type FigureName = keyof typeof FIGURES;
export const FIGURE_NAMES = Object.keys(FIGURES) as FigureName[];

export const isSkipped = <T extends object>(f: T | Skipped): f is Skipped => 'skipped' in f;

/**
 * Read the databases once for every figure: the analysis, the timeline of one run, and plan replay's
 * savings.
 * @example const inputs = await figureInputs(['results/quickstart.duckdb']);
 */
export async function figureInputs(
  dbs: readonly string[],
  options: AnalysisOptions & InputsOptions = {},
): Promise<FigureInputs> {
  const analysis = await analyseFiles(dbs, options);
  if (options.runId && !analysis.runs.some((r) => r.run_id === options.runId)) {
    throw new Error(`no labelled run ${options.runId} in ${dbs.join(', ')}`);
  }
  return inputsFromAnalysis(analysis, options);
}

/**
 * The figures' inputs from an analysis already made: the timeline of `runId` or the showcase run, and
 * every database replayed (at the analysis's hourly rate) on the checkout `pitonRoot` names.
 */
export async function inputsFromAnalysis(analysis: Analysis, options: InputsOptions = {}): Promise<FigureInputs> {
  const run = options.runId ? analysis.runs.find((r) => r.run_id === options.runId) : showcaseRun(analysis);
  return {
    analysis,
    timeline: run ? await runTimeline(run.source, run.run_id) : undefined,
    planSavings: await planSavings(analysis.runs, {
      checkout: await chooseReplayCheckout(options.pitonRoot),
      hourlyUsd: analysis.settings.hourly_usd,
    }),
  };
}

/** Build the named figures (default: all), in catalogue order. */
export function buildFigures(inputs: FigureInputs, only: readonly FigureName[] = FIGURE_NAMES): (Figure | Skipped)[] {
  return FIGURE_NAMES.filter((name) => only.includes(name)).map((name) => FIGURES[name](inputs));
}

export interface WrittenFigure {
  readonly name: string;
  readonly title: string;
  readonly caption: string;
  /** File names inside the output directory: the rendered formats, NAME.vl.json and NAME.data.json. */
  readonly files: readonly string[];
  readonly seconds: number;
  /** What Vega-Lite warned about while compiling the figure (none, for the figures shipped here). */
  readonly warnings: readonly string[];
}

export interface FigureManifest {
  readonly databases: readonly string[];
  readonly settings: Analysis['settings'];
  readonly figures: readonly WrittenFigure[];
  readonly skipped: readonly Skipped[];
}

/**
 * Render and save each figure as NAME.<format>, its complete Vega-Lite spec (data inline) as
 * NAME.vl.json and the data it shows as NAME.data.json; then figures.json (the manifest) and
 * README.md (every figure with its caption).
 * @example await writeFigures(await figureInputs(['results/quickstart.duckdb']), { out: 'results/figures', formats: ['svg', 'png'] });
 */
export async function writeFigures(
  inputs: FigureInputs,
  options: {
    readonly out: string;
    readonly formats: readonly FigureFormat[];
    readonly only?: readonly FigureName[];
    readonly onFigure?: (done: WrittenFigure | Skipped) => void;
  },
): Promise<FigureManifest> {
  mkdirSync(options.out, { recursive: true });
  const written: WrittenFigure[] = [];
  const skipped: Skipped[] = [];
  const { settings } = inputs.analysis;
  for (const figure of buildFigures(inputs, options.only)) {
    if (isSkipped(figure)) {
      skipped.push(figure);
      options.onFigure?.(figure);
      continue;
    }
    const started = performance.now();
    const rendered = await renderFigure(figure, options.formats);
    const files: string[] = [];
    const save = (file: string, content: string | Buffer) => {
      writeFileSync(join(options.out, file), content);
      files.push(file);
    };
    for (const format of options.formats) save(`${figure.name}.${format}`, rendered.files[format]!);
    save(`${figure.name}.vl.json`, `${JSON.stringify(completeSpec(figure), null, 1)}\n`);
    const data = {
      figure: figure.name,
      title: figure.title,
      caption: figure.caption,
      settings,
      datasets: figure.datasets,
    };
    save(`${figure.name}.data.json`, `${JSON.stringify(data, null, 1)}\n`);
    const done = {
      name: figure.name,
      title: figure.title,
      caption: figure.caption,
      files,
      seconds: (performance.now() - started) / 1000,
      warnings: rendered.warnings,
    };
    written.push(done);
    options.onFigure?.(done);
  }
  const manifest: FigureManifest = { databases: settings.files, settings, figures: written, skipped };
  writeFileSync(
    join(options.out, 'figures.json'),
    `${JSON.stringify({ ...manifest, figures: written.map(({ name, title, caption, files }) => ({ name, title, caption, files })) }, null, 1)}\n`,
  );
  writeFileSync(join(options.out, 'README.md'), figuresReadme(manifest, options.formats));
  return manifest;
}

function figuresReadme(manifest: FigureManifest, formats: readonly FigureFormat[]): string {
  const image = formats.includes('svg') ? 'svg' : formats[0];
  const lines = [
    '# Figures',
    '',
    `Generated by \`mace figures\` from ${manifest.databases.map((d) => `\`${d}\``).join(', ')}. ` +
      'Each figure sits beside its complete Vega-Lite spec (`NAME.vl.json`, data inline: open it in any Vega-Lite ' +
      'editor to restyle) and the data it shows (`NAME.data.json`).',
    '',
  ];
  for (const f of manifest.figures) {
    lines.push(`## ${f.title}`, '', image ? `![${f.title}](${f.name}.${image})` : '', '', f.caption, '');
  }
  if (manifest.skipped.length) {
    lines.push('## Not drawn', '', ...manifest.skipped.map((s) => `- ${s.name}: ${s.skipped}`), '');
  }
  return lines.join('\n');
}
