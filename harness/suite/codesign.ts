/**
 * A suite task's codesign block, as the search reads it (a DesignSpace and the grid's designs), and
 * the checks loading makes on it: whole-set geometries, a grid inside the space that keeps Ariane's
 * way rule and fits the simulation budget, and the crossbar only on a mesh of one row.
 */
import { gridDesigns, spaceGeometryProblems, type DesignSpace } from '../../mace/codesign/space.ts';
import { describeDesign, designWayViolations } from '../../mace/codesign/design.ts';
import { CACHE_NAMES, type CacheName, type Network } from '../../mace/openpiton/geometry.ts';
import type { MaceSpec } from '../../mace/spec.ts';
import type { Path } from './locate.ts';
import type { CodesignEntry } from './schema.ts';

type Emit = (path: Path, message: string) => void;

export function codesignSpace(entry: CodesignEntry): DesignSpace {
  const caches: Partial<Record<CacheName, { sizes: number[]; assocs: number[] }>> = {};
  for (const cache of CACHE_NAMES) {
    const axis = (entry.space as Partial<Record<CacheName, { sizes: number[]; assocs: number[] }>>)[cache];
    if (axis) caches[cache] = axis;
  }
  return { caches, networks: entry.space.networks as Network[] };
}

const KNOB = /^(l1i|l1d|l15|l2)_(size|assoc)$/;

export function checkCodesign(entry: CodesignEntry, spec: MaceSpec, at: Path, emit: Emit): void {
  const space = codesignSpace(entry);
  if (space.networks.includes('xbar_config') && spec.target_mesh[1] !== 1)
    emit([...at, 'space', 'networks'], 'xbar_config needs a mesh of one row (the crossbar has one port per column)');
  for (const { cache, message } of spaceGeometryProblems(space)) emit([...at, 'space', cache], message);
  if (!Object.keys(entry.grid).length)
    emit([...at, 'grid'], 'the grid must name at least one knob (<cache>_size, <cache>_assoc, network)');
  let inside = true;
  for (const [knob, values] of Object.entries(entry.grid)) {
    const problem = knobProblem(space, knob, values);
    if (problem) {
      emit([...at, 'grid', knob], problem);
      inside = false;
    }
  }
  if (!inside || !Object.keys(entry.grid).length) return;
  const designs = gridDesigns(entry.grid);
  if (designs.length > entry.simulations)
    emit([...at, 'grid'], `the grid holds ${designs.length} designs, more than simulations (${entry.simulations})`);
  for (const design of designs) {
    const violations = designWayViolations(spec, design);
    if (violations.length) {
      emit([...at, 'grid'], `the grid holds ${describeDesign(design)}, whose ${violations.join('; ')}`);
      return;
    }
  }
}

/** Why a grid knob's values do not lie in the space, or undefined when they do. */
function knobProblem(space: DesignSpace, knob: string, values: readonly (number | string)[]): string | undefined {
  if (knob === 'network') {
    const bad = values.filter((v) => !space.networks.includes(v as Network));
    return bad.length ? `${bad.join(', ')} not in space.networks (${space.networks.join(', ')})` : undefined;
  }
  const match = KNOB.exec(knob);
  if (!match)
    return `unknown knob ${knob}; knobs are <cache>_size, <cache>_assoc (caches ${CACHE_NAMES.join(', ')}) and network`;
  const [cache, what] = [match[1] as CacheName, match[2] === 'size' ? 'sizes' : 'assocs'] as const;
  const allowed = space.caches[cache]?.[what];
  if (!allowed) return `space has no ${cache} axis for the grid to draw from`;
  const bad = values.filter((v) => typeof v !== 'number' || !allowed.includes(v));
  return bad.length ? `${bad.join(', ')} not in space.${cache}.${what} (${allowed.join(', ')})` : undefined;
}
