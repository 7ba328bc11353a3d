/**
 * The vocabulary OpenPiton's `sims` accepts for a manycore build: cores, interconnects, mesh limits
 * and the four configurable caches with their defaults (piton/tools/src/sims/manycore.config).
 * Plain constants only, so every part of the project can share them without pulling in the adapter.
 */

export const CORES = ['ariane', 'sparc', 'pico'] as const;
export type Core = (typeof CORES)[number];

/**
 * A core a build can name: one of the three OpenPiton tiles, or `generic`, a core hosted by the
 * Generic Tile and named by its descriptor (sims `-generic_core=<name>` in place of the core flag).
 */
export const CORE_KINDS = [...CORES, 'generic'] as const;
export type CoreKind = (typeof CORE_KINDS)[number];

/** A Generic Tile core's name: its folder, its wrapper module's prefix and its `-generic_core=` value. */
export const GENERIC_CORE_NAME_RE = /^[a-z][a-z0-9_]*$/;

/** The only two values `-network_config=` accepts; left unset, sims passes a name pyhplib rejects. */
export const NETWORKS = ['2dmesh_config', 'xbar_config'] as const;
export type Network = (typeof NETWORKS)[number];
export const DEFAULT_NETWORK: Network = '2dmesh_config';

/** sims dies with "x_tiles can be at most 256" above this. */
export const MAX_TILES_PER_AXIS = 256;

export const CACHE_NAMES = ['l15', 'l1d', 'l1i', 'l2'] as const;
export type CacheName = (typeof CACHE_NAMES)[number];

/** Size in bytes and associativity (ways). */
export type CacheGeometry = readonly [size: number, assoc: number];
export type CacheMap = Readonly<Record<CacheName, CacheGeometry>>;
export type PartialCacheMap = Readonly<Partial<Record<CacheName, CacheGeometry>>>;

export const DEFAULT_CACHES: CacheMap = Object.freeze({
  l15: [8192, 4],
  l1d: [8192, 4],
  l1i: [16384, 4],
  l2: [65536, 4],
});

/** The RTL define every build carries; a plan's defines add to it and never replace it. */
export const DEFAULT_CONFIG_RTL: readonly string[] = Object.freeze(['MINIMAL_MONITORING']);

/** Upper-snake-case, as `-config_rtl=` defines are written. */
export const DEFINE_RE = /^[A-Z][A-Z0-9_]*$/;

/** Fill the caches a partial map leaves out from the defaults, in the canonical name order. */
export function fullCaches(partial: PartialCacheMap | null | undefined): CacheMap {
  const out = {} as Record<CacheName, CacheGeometry>;
  for (const name of CACHE_NAMES) out[name] = partial?.[name] ?? DEFAULT_CACHES[name];
  return out;
}

/** Render caches as the planner's defaults line: `l1i=16384,4 l1d=8192,4 l15=8192,4 l2=65536,4`. */
export function describeCaches(
  caches: PartialCacheMap,
  order: readonly CacheName[] = ['l1i', 'l1d', 'l15', 'l2'],
): string {
  return order
    .filter((name) => caches[name])
    .map((name) => `${name}=${caches[name]![0]},${caches[name]![1]}`)
    .join(' ');
}

/** Where Generic Tile cores live in a checkout, one folder per core. */
export const GENERIC_TILE_DIR = 'piton/design/chip/tile/generic';

/** A Generic Tile core's folder, its tile-facing wrapper, its own sources and its file list. */
export const genericCorePaths = (name: string) => ({
  dir: `${GENERIC_TILE_DIR}/${name}`,
  wrapper: `${GENERIC_TILE_DIR}/${name}/${name}_wrapper.v`,
  rtl: `${GENERIC_TILE_DIR}/${name}/rtl`,
  flist: `${GENERIC_TILE_DIR}/${name}/Flist.${name}`,
});
