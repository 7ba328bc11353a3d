/**
 * A co-design point: the four caches' geometries and the interconnect. Designs are compared and
 * de-duplicated by their one-line description, which is also what the LLM proposer reads and writes
 * (`l15=8192,4 l1d=8192,4 l1i=16384,4 l2=65536,4 network=2dmesh_config`).
 */
import { configForTask } from '../design.ts';
import { wayViolations } from '../openpiton/config.ts';
import type { MaceSpec } from '../spec.ts';
import {
  CACHE_NAMES,
  DEFAULT_NETWORK,
  fullCaches,
  NETWORKS,
  type CacheMap,
  type CacheName,
  type Network,
  type PartialCacheMap,
} from '../openpiton/geometry.ts';

export interface Design {
  readonly caches: CacheMap;
  readonly network: Network;
}

/** A design from the caches it changes; the rest keep OpenPiton's defaults. */
export function designOf(caches: PartialCacheMap = {}, network: Network = DEFAULT_NETWORK): Design {
  return { caches: fullCaches(caches), network };
}

/** One line, caches in name order then the network: the design's identity. */
export function describeDesign(design: Design): string {
  const caches = CACHE_NAMES.map((name) => `${name}=${design.caches[name][0]},${design.caches[name][1]}`);
  return [...caches, `network=${design.network}`].join(' ');
}

/** What `evaluations.design` holds. */
export function designJson(design: Design): { caches: Record<CacheName, [number, number]>; network: Network } {
  const caches = {} as Record<CacheName, [number, number]>;
  for (const name of CACHE_NAMES) caches[name] = [design.caches[name][0], design.caches[name][1]];
  return { caches, network: design.network };
}

const TOKEN = /^(l15|l1d|l1i|l2)=(\d+),(\d+)$|^network=(\S+)$/;

/**
 * Read a description back. Strict: every token must be a cache geometry or the network, a name may
 * appear once, and a bad token or unknown network gives null. Caches left out keep their defaults.
 */
export function parseDesign(text: string): Design | null {
  const caches: Partial<Record<CacheName, [number, number]>> = {};
  let network: Network = DEFAULT_NETWORK;
  let sawNetwork = false;
  for (const token of text.trim().split(/\s+/)) {
    const match = TOKEN.exec(token);
    if (!match) return null;
    if (match[4] !== undefined) {
      if (sawNetwork || !(NETWORKS as readonly string[]).includes(match[4])) return null;
      network = match[4] as Network;
      sawNetwork = true;
      continue;
    }
    const name = match[1] as CacheName;
    const [size, assoc] = [Number(match[2]), Number(match[3])];
    if (caches[name] || size <= 0 || assoc <= 0) return null;
    caches[name] = [size, assoc];
  }
  return designOf(caches, network);
}

/** How the design breaks Ariane's way rule on the spec's core (empty for other cores and for a design that keeps it). */
export function designWayViolations(spec: MaceSpec, design: Design): string[] {
  return wayViolations(
    configForTask(spec, { caches: designJson(design).caches, config_rtl: null, network: design.network }),
  );
}
