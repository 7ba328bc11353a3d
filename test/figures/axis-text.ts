/**
 * Where a figure's axis text belongs, and whether a PNG has ink there. The boxes come from Vega's own
 * scenegraph for the saved spec (the layout the SVG was drawn from); the pixels from the PNG file,
 * decoded with pngjs. A PNG drawn with no font has its axes and marks but blank label boxes.
 */
import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { PNG_SCALE } from '../../harness/figures/index.ts';

export interface TextBox {
  readonly role: string;
  readonly text: string;
  /** In SVG pixels, from the SVG's top-left corner. */
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

interface SceneItem {
  readonly x?: number;
  readonly y?: number;
  readonly opacity?: number;
  readonly text?: unknown;
  readonly bounds: { x1: number; y1: number; x2: number; y2: number };
  readonly items?: readonly Scene[];
}
interface Scene {
  readonly marktype: string;
  readonly role: string;
  readonly items: readonly SceneItem[];
}

const TEXT_ROLES = new Set(['axis-label', 'axis-title']);

/** Every visible axis label and axis title of a saved Vega-Lite spec, placed as in its SVG. */
export async function axisTextBoxes(specFile: string): Promise<TextBox[]> {
  const spec = JSON.parse(readFileSync(specFile, 'utf8')) as TopLevelSpec;
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  await view.runAsync();
  // The SVG's root translate: the view's origin plus its padding.
  const [ox, oy] = view.origin();
  const padding = view.padding() as { left: number; top: number };
  const boxes: TextBox[] = [];
  const walk = (scene: Scene, dx: number, dy: number) => {
    for (const item of scene.items) {
      if (scene.marktype === 'text' && TEXT_ROLES.has(scene.role) && item.opacity !== 0 && String(item.text ?? '')) {
        const b = item.bounds;
        boxes.push({
          role: scene.role,
          text: String(item.text),
          x1: b.x1 + dx,
          y1: b.y1 + dy,
          x2: b.x2 + dx,
          y2: b.y2 + dy,
        });
      }
      for (const child of item.items ?? []) walk(child, dx + (item.x ?? 0), dy + (item.y ?? 0));
    }
  };
  walk((view.scenegraph() as unknown as { root: Scene }).root, ox + padding.left, oy + padding.top);
  view.finalize();
  return boxes;
}

/** Pixels darker than this (0–255 luminance) count as ink: axis text is drawn in #222, domains and grids lighter. */
const INK_LUMINANCE = 110;

/** How many ink pixels a PNG has inside a box given in SVG pixels. */
export function inkPixels(png: PNG, box: TextBox, scale = PNG_SCALE): number {
  const x1 = Math.max(0, Math.floor(box.x1 * scale));
  const y1 = Math.max(0, Math.floor(box.y1 * scale));
  const x2 = Math.min(png.width, Math.ceil(box.x2 * scale));
  const y2 = Math.min(png.height, Math.ceil(box.y2 * scale));
  let ink = 0;
  for (let y = y1; y < y2; y++) {
    for (let x = x1; x < x2; x++) {
      const i = (y * png.width + x) * 4;
      const luminance = 0.2126 * png.data[i]! + 0.7152 * png.data[i + 1]! + 0.0722 * png.data[i + 2]!;
      if (png.data[i + 3]! > 128 && luminance < INK_LUMINANCE) ink++;
    }
  }
  return ink;
}

export function readPng(file: string): PNG {
  return PNG.sync.read(readFileSync(file));
}
