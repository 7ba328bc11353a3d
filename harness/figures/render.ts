/**
 * Rendering with no browser: Vega-Lite compiles to Vega, Vega's headless view writes SVG, and resvg
 * rasterises it to PNG with fonts handed over explicitly. resvg draws no text at all when it finds no
 * font, and says nothing, so the DejaVu files come from an npm package (dejavu-fonts-ttf) rather
 * than from whatever the machine has, and a missing file is an error.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Resvg, type ResvgRenderOptions } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile } from 'vega-lite';
import { completeSpec, FONT_FAMILY, type Figure } from './figure.ts';

/** Output formats: `svg` as Vega writes it, `png` at print resolution, `outlined.svg` with text as paths (for PDF/LaTeX, no fonts needed). */
export const FIGURE_FORMATS = ['svg', 'png', 'outlined.svg'] as const;
export type FigureFormat = (typeof FIGURE_FORMATS)[number];

/** PNG pixels per SVG pixel: SVG pixels are 1/96 inch, so this gives 300 dots per inch. */
export const PNG_SCALE = 300 / 96;

const FONT_FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSans-Oblique.ttf'];

let fontFiles: string[] | undefined;

/** The DejaVu Sans files every figure is drawn with. */
export function figureFonts(): string[] {
  if (fontFiles) return fontFiles;
  const pkg = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json');
  const files = FONT_FILES.map((file) => join(dirname(pkg), 'ttf', file));
  const missing = files.filter((f) => !existsSync(f));
  if (missing.length) {
    throw new Error(
      `figure fonts missing: ${missing.join(', ')}; run \`npm ci\` to install the dejavu-fonts-ttf package`,
    );
  }
  fontFiles = files;
  return files;
}

/** A Vega logger that keeps what Vega-Lite warns about instead of printing it. */
function collectingLogger(warnings: string[]): vega.LoggerInterface {
  let level = vega.Warn;
  const logger: vega.LoggerInterface = {
    level(value?: number) {
      if (value === undefined) return level as never;
      level = value;
      return logger;
    },
    error: (...args: readonly unknown[]) => {
      throw new Error(args.map(String).join(' '));
    },
    warn: (...args: readonly unknown[]) => (warnings.push(args.map(String).join(' ')), logger),
    info: () => logger,
    debug: () => logger,
  };
  return logger;
}

/** The compiled Vega view of a figure, run and ready to draw (finalize() it when done), and Vega-Lite's warnings. */
export async function figureView(figure: Figure): Promise<{ view: vega.View; warnings: string[] }> {
  const warnings: string[] = [];
  const compiled = compile(completeSpec(figure), { logger: collectingLogger(warnings) });
  const view = new vega.View(vega.parse(compiled.spec), { renderer: 'none' });
  await view.runAsync();
  return { view, warnings };
}

/** The figure as SVG text, and what Vega-Lite warned about while compiling it. */
export async function renderSvg(figure: Figure): Promise<{ svg: string; warnings: string[] }> {
  const { view, warnings } = await figureView(figure);
  try {
    return { svg: await view.toSVG(), warnings };
  } finally {
    view.finalize();
  }
}

function resvg(svg: string, scale: number): Resvg {
  const options: ResvgRenderOptions = {
    background: 'white',
    fitTo: { mode: 'zoom', value: scale },
    font: {
      loadSystemFonts: false,
      fontFiles: figureFonts(),
      defaultFontFamily: FONT_FAMILY,
      sansSerifFamily: FONT_FAMILY,
    },
  };
  return new Resvg(svg, options);
}

/** SVG text to PNG bytes at `scale` PNG pixels per SVG pixel. */
export function svgToPng(svg: string, scale = PNG_SCALE): Buffer {
  return resvg(svg, scale).render().asPng();
}

/** The same SVG with every glyph turned into a path: it looks the same anywhere, with no font installed. */
export function outlineSvg(svg: string): string {
  return resvg(svg, 1).toString();
}

export interface RenderedFigure {
  readonly files: Partial<Record<FigureFormat, string | Buffer>>;
  readonly warnings: readonly string[];
}

/** Every requested format of one figure. */
export async function renderFigure(figure: Figure, formats: readonly FigureFormat[]): Promise<RenderedFigure> {
  const { svg, warnings } = await renderSvg(figure);
  const files: Partial<Record<FigureFormat, string | Buffer>> = {};
  for (const format of formats) {
    files[format] = format === 'svg' ? svg : format === 'png' ? svgToPng(svg) : outlineSvg(svg);
  }
  return { files, warnings };
}
