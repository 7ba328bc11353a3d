/**
 * Paper figures from results databases: Vega-Lite specs built from the analysis library's tables,
 * rendered in Node with no browser (SVG, PNG at 300 dpi, SVG with text as outlines), each saved with
 * its spec and data. The notebooks and `mace figures` use this and nothing else.
 *
 * @example
 *   import { figureInputs, writeFigures } from '../harness/figures/index.ts';
 *   await writeFigures(await figureInputs(['results/quickstart.duckdb']), { out: 'results/figures', formats: ['svg', 'png'] });
 */
export {
  FIGURES,
  FIGURE_NAMES,
  buildFigures,
  figureInputs,
  inputsFromAnalysis,
  isSkipped,
  writeFigures,
  type FigureInputs,
  type InputsOptions,
  type FigureManifest,
  type FigureName,
  type WrittenFigure,
} from './catalogue.ts';
export { CONFIG, completeSpec, type Figure, type Rows, type Skipped } from './figure.ts';
export { FIXED_METHOD_COLOURS, methodColours, methodScale } from './palette.ts';
export {
  FIGURE_FORMATS,
  PNG_SCALE,
  figureFonts,
  figureView,
  outlineSvg,
  renderFigure,
  renderSvg,
  svgToPng,
  type FigureFormat,
  type RenderedFigure,
} from './render.ts';
export { ablationFigure, recoveryFigure } from './comparisons.ts';
export { codesignFigure, codesignParetoFigure } from './codesign.ts';
export { costFigure, passRateFigure, timeToPassFigure } from './methods.ts';
export { planReplayFigure } from './replay.ts';
export { timelineFigure } from './run.ts';
