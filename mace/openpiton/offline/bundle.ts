/**
 * The model sims as one CommonJS file, bundled with esbuild from its TypeScript, so every sims call
 * in a checkout is a plain `node` start (no TypeScript loader). Also the model version: a hash of the
 * sources the bundle and the checkout template are made from, which tells a stale checkout.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));

/** The files that make a checkout: the model, its sims, the template, and the adapter modules they import. */
function modelSources(): string[] {
  const dir = (d: string) =>
    readdirSync(join(HERE, d))
      .filter((f) => f.endsWith('.ts'))
      .sort()
      .map((f) => join(HERE, d, f));
  return [
    ...dir('model'),
    ...dir('sims'),
    join(HERE, 'template.ts'),
    join(HERE, 'unit-template.ts'),
    join(HERE, 'defines.ts'),
    join(HERE, '..', 'geometry.ts'),
    join(HERE, '..', 'verilog.ts'),
  ];
}

let version: string | undefined;

/** Twelve hex digits that change whenever anything a checkout is made from changes. */
export function modelVersion(): string {
  if (version) return version;
  const hash = createHash('sha256');
  for (const file of modelSources()) hash.update(file.slice(HERE.length)).update('\0').update(readFileSync(file));
  return (version = hash.digest('hex').slice(0, 12));
}

let bundled: Promise<string> | undefined;

/** The bundled sims (cached for the process). */
export function bundleSims(): Promise<string> {
  bundled ??= (async () => {
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [join(HERE, 'sims', 'entry.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      write: false,
      legalComments: 'none',
      banner: { js: '// mace offline model of OpenPiton: the sims of an offline checkout (generated; do not edit).' },
    });
    return result.outputFiles[0]!.text;
  })();
  return bundled;
}
