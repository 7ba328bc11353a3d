/**
 * The map's import rules (DESIGN.md, and the architecture seed's Package Boundary): harness → mace →
 * mace/openpiton, never back. This fails when a module imports across a boundary the wrong way.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from './helpers.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return /\.(ts|mts|cts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

/** Project-relative paths of the local modules a text imports (static, dynamic and re-exports). */
function localImports(text: string, fromDir: string): string[] {
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  return specifiers.filter((s) => s.startsWith('.')).map((s) => relative(ROOT, resolve(fromDir, s)));
}

const outsideAdapter = (target: string) => !target.startsWith('mace/openpiton/');

function violations(dir: string, forbidden: (target: string) => boolean): string[] {
  return sources(join(ROOT, dir)).flatMap((file) =>
    localImports(readFileSync(file, 'utf8'), dirname(file))
      .filter(forbidden)
      .map((target) => `${relative(ROOT, file)} imports ${target}`),
  );
}

describe('import boundaries', () => {
  it('mace/openpiton imports nothing from the rest of mace/ or from harness/', () => {
    assert.deepEqual(violations('mace/openpiton', outsideAdapter), []);
  });

  it('mace/ imports nothing from harness/ or notebooks/', () => {
    assert.deepEqual(
      violations('mace', (t) => t.startsWith('harness/') || t.startsWith('notebooks/')),
      [],
    );
  });

  it('sees static, dynamic and re-export imports that cross the line', () => {
    const text = [
      "import { Task } from '../spec.ts';",
      "export { x } from '../../harness/cli/main.ts';",
      "const m = await import('../store/store.ts');",
      "import { fine } from './geometry.ts';",
    ].join('\n');
    const found = localImports(text, join(ROOT, 'mace/openpiton')).filter(outsideAdapter);
    assert.deepEqual(found, ['mace/spec.ts', 'harness/cli/main.ts', 'mace/store/store.ts']);
  });
});
