/**
 * The design space a co-design search explores: for each searched cache, the sizes and ways it may
 * take, and the networks. Knobs are `<cache>_size`, `<cache>_assoc` and `network`; a cache the space
 * leaves out keeps OpenPiton's default. The grid strategy's designs come from a grid over the same
 * knobs, in the order the suite lists them.
 */
import { CACHE_NAMES, DEFAULT_CACHES, DEFAULT_NETWORK, type CacheName, type Network } from '../openpiton/geometry.ts';
import type { Random } from '../llm/scripted/random.ts';
import { cacheArrays, GeometryError } from './area.ts';
import { describeDesign, designOf, type Design } from './design.ts';

export interface SpaceAxis {
  readonly sizes: readonly number[];
  readonly assocs: readonly number[];
}

export interface DesignSpace {
  readonly caches: Readonly<Partial<Record<CacheName, SpaceAxis>>>;
  readonly networks: readonly Network[];
}

export type KnobValue = number | string;
export interface Knob {
  readonly name: string;
  readonly values: readonly KnobValue[];
}

/** The space's knobs in a fixed order: each searched cache's size then ways, then the network. */
export function spaceKnobs(space: DesignSpace): Knob[] {
  const knobs: Knob[] = [];
  for (const cache of CACHE_NAMES) {
    const axis = space.caches[cache];
    if (!axis) continue;
    knobs.push({ name: `${cache}_size`, values: axis.sizes }, { name: `${cache}_assoc`, values: axis.assocs });
  }
  knobs.push({ name: 'network', values: space.networks });
  return knobs;
}

/** Every design the space holds. */
export function spaceCount(space: DesignSpace): number {
  return spaceKnobs(space).reduce((n, knob) => n * knob.values.length, 1);
}

const KNOB = /^(l1i|l1d|l15|l2)_(size|assoc)$/;

/** A design from knob values; knobs left out keep the defaults. Throws on an unknown knob. */
export function designFromKnobs(values: Readonly<Record<string, KnobValue>>): Design {
  const caches: Partial<Record<CacheName, [number, number]>> = {};
  let network: Network = DEFAULT_NETWORK;
  for (const [knob, value] of Object.entries(values)) {
    if (knob === 'network') {
      network = value as Network;
      continue;
    }
    const match = KNOB.exec(knob);
    if (!match) throw new Error(`unknown knob ${knob}; knobs are <cache>_size, <cache>_assoc and network`);
    const cache = match[1] as CacheName;
    const geometry = (caches[cache] ??= [...DEFAULT_CACHES[cache]] as [number, number]);
    geometry[match[2] === 'size' ? 0 : 1] = Number(value);
  }
  return designOf(caches, network);
}

/** One uniform draw per knob. */
export function sampleDesign(space: DesignSpace, random: Random): Design {
  const values: Record<string, KnobValue> = {};
  for (const knob of spaceKnobs(space)) values[knob.name] = knob.values[Math.floor(random() * knob.values.length)]!;
  return designFromKnobs(values);
}

/** The Cartesian product of a grid, the first knob varying slowest, in the order the grid lists values. */
export function gridDesigns(grid: Readonly<Record<string, readonly KnobValue[]>>): Design[] {
  let points: Array<Record<string, KnobValue>> = [{}];
  for (const [knob, values] of Object.entries(grid))
    points = points.flatMap((point) => values.map((value) => ({ ...point, [knob]: value })));
  return points.map(designFromKnobs);
}

/** Whether the space holds the design: searched caches on their axes, the others at their defaults. */
export function inSpace(space: DesignSpace, design: Design): boolean {
  if (!space.networks.includes(design.network)) return false;
  return CACHE_NAMES.every((cache) => {
    const [size, assoc] = design.caches[cache];
    const axis = space.caches[cache];
    return axis
      ? axis.sizes.includes(size) && axis.assocs.includes(assoc)
      : size === DEFAULT_CACHES[cache][0] && assoc === DEFAULT_CACHES[cache][1];
  });
}

/** Geometries of the space that are not a whole number of sets, one message each. */
export function spaceGeometryProblems(space: DesignSpace): Array<{ cache: CacheName; message: string }> {
  const problems: Array<{ cache: CacheName; message: string }> = [];
  for (const cache of CACHE_NAMES) {
    const axis = space.caches[cache];
    for (const size of axis?.sizes ?? [])
      for (const assoc of axis!.assocs) {
        try {
          cacheArrays(cache, size, assoc);
        } catch (error) {
          if (!(error instanceof GeometryError)) throw error;
          problems.push({ cache, message: error.message });
        }
      }
  }
  return problems;
}

/** The space as the LLM proposer reads it. */
export function describeSpace(space: DesignSpace): string {
  const lines = CACHE_NAMES.map((cache) => {
    const axis = space.caches[cache];
    const [size, assoc] = DEFAULT_CACHES[cache];
    return axis
      ? `- ${cache}: sizes ${axis.sizes.join(', ')} bytes; ways ${axis.assocs.join(', ')}`
      : `- ${cache}: fixed at ${size},${assoc}`;
  });
  lines.push(`- network: ${space.networks.join(', ')}`);
  return [`The design space (${spaceCount(space)} designs):`, ...lines].join('\n');
}
