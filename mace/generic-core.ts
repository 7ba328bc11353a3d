/**
 * A run's core before its first plan: every checkout must be able to build it, and a Generic Tile
 * core must be one the tile can host (an RV32 ISA, a clock, a reset and PicoRV32's memory interface,
 * ports that match its RTL). A core that passes is laid out in every checkout (its sources in rtl/,
 * the wrapper skeleton). While the wrapper is still that skeleton, in the checkout and in the edits an
 * iteration starts from, the plan check's wrapper_skeleton rule applies.
 */
import { existsSync } from 'node:fs';
import {
  hostingProblems,
  readWrapper,
  rtlProblems,
  scaffoldGenericCore,
  topModule,
  unwrittenWrapper,
} from './openpiton/generic-tile.ts';
import { genericCorePaths } from './openpiton/geometry.ts';
import { coreSupportProblem } from './openpiton/source-index.ts';
import type { EditSet } from './rtl-edits.ts';
import type { MaceSpec } from './spec.ts';

/** The core as a run's messages name it: `core pico`, or `generic core femto`. */
export const coreLabel = (spec: MaceSpec): string =>
  spec.generic_core ? `generic core ${spec.generic_core.name}` : `core ${spec.core}`;

/**
 * Why the run's core cannot be built, or undefined when it can; then a Generic Tile core has been
 * laid out in every checkout. Checkouts that do not exist (replay labels) are skipped.
 */
export function prepareCore(spec: MaceSpec, roots: readonly string[]): string | undefined {
  const present = roots.filter((root) => existsSync(root));
  for (const root of present) {
    const problem = coreSupportProblem(root, spec.core);
    if (problem) return `checkout ${root} cannot build ${coreLabel(spec)}: ${problem}`;
  }
  const core = spec.generic_core;
  if (!core || !present.length) return undefined;
  const top = topModule(present[0]!, core);
  const problems = [...hostingProblems(core), ...(typeof top === 'string' ? [top] : rtlProblems(core, top))];
  if (problems.length) return `the Generic Tile cannot host ${coreLabel(spec)}: ${problems.join('; ')}`;
  for (const root of present) scaffoldGenericCore(root, core);
  return undefined;
}

/**
 * True while a Generic Tile core's wrapper is still the generated skeleton (comments and spacing
 * aside): as the iteration's starting edits hold it, else as the checkout holds it.
 */
export function skeletonWrapper(spec: MaceSpec, root: string, edits: EditSet): boolean {
  const core = spec.generic_core;
  if (!core) return false;
  const path = genericCorePaths(core.name).wrapper;
  return unwrittenWrapper(core, edits.get(path) ?? readWrapper(root, core.name));
}
