/**
 * What a figure is: a Vega-Lite spec that reads its data by name, and the named data sets it shows.
 * The spec and the data travel apart so a figure can be saved with its data beside it, restyled
 * without recomputing anything, and checked against the report.
 */
import type { Config, TopLevelSpec } from 'vega-lite';
import { INK } from './palette.ts';

/** One data set: flat rows of plain values (JSON-safe). */
export type Rows = readonly Readonly<Record<string, string | number | boolean | null>>[];

export interface Figure {
  /** File-name stem: lower_snake_case. */
  readonly name: string;
  readonly title: string;
  /** One or two sentences saying what is shown and how it was computed. */
  readonly caption: string;
  /** The Vega-Lite spec; its data are `{ name: KEY }` references into `datasets`. */
  readonly spec: TopLevelSpec;
  readonly datasets: Readonly<Record<string, Rows>>;
}

/** A figure that has nothing to show for this database, and why. */
export interface Skipped {
  readonly name: string;
  readonly skipped: string;
}

export const FONT_FAMILY = 'DejaVu Sans';

/** Shared styling: the embedded font, dark text on white, quiet axes. */
export const CONFIG: Config = {
  font: FONT_FAMILY,
  background: 'white',
  padding: 8,
  view: { stroke: null },
  axis: {
    labelColor: INK,
    titleColor: INK,
    labelFontSize: 11,
    titleFontSize: 12,
    titleFontWeight: 'normal',
    domainColor: '#888888',
    tickColor: '#888888',
    gridColor: '#e8e8e8',
    labelLimit: 260,
  },
  legend: { labelColor: INK, titleColor: INK, labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal' },
  header: { labelColor: INK, titleColor: INK, labelFontSize: 12, titleFontSize: 12 },
  title: { color: INK, fontSize: 14, anchor: 'start', subtitleColor: '#555555', subtitleFontSize: 11, offset: 10 },
};

/** The spec with its data sets inline: renders anywhere (the Vega editor, JupyterLab, vl2svg). */
export function completeSpec(figure: Figure): TopLevelSpec {
  return { ...figure.spec, datasets: structuredClone(figure.datasets) as never, config: CONFIG } as TopLevelSpec;
}
