/**
 * A built design as the model's binary records it: what sims was asked to build, after sims' own
 * handling of the flags, and the state of the checkout's sources at build time.
 */
import { DEFAULT_CACHES, type CacheMap, type CacheName } from '../../geometry.ts';

/** `generic` is a Generic Tile core selected with `-generic_core=<name>`. */
export type ModelCore = 'ariane' | 'sparc' | 'pico' | 'generic';

/** What a source change does to a run once it builds. */
export type RunDefect = 'bad_trap' | 'hang';

export interface Design {
  readonly core: ModelCore;
  /** The Generic Tile core's name, when core is `generic`. */
  readonly genericCore?: string;
  readonly xTiles: number;
  readonly yTiles: number;
  readonly network: '2dmesh_config' | 'xbar_config';
  readonly defines: readonly string[];
  /** After sims' handling: a size or associativity of 0 is ignored (Perl reads '0' as false). */
  readonly caches: CacheMap;
  readonly buildArgs: readonly string[];
  /** Bits of the monitor's finish mask register (pc_cmp.v.pyv: `integer` under Verilator is 32). */
  readonly finishMaskBits: number;
  /** Whether the Generic Tile wrapper instantiates its core (always true for the other cores). */
  readonly coreInstantiated: boolean;
  /** A source change that builds but breaks the design, with where it is. */
  readonly defect?: { readonly effect: RunDefect; readonly file: string; readonly line: number };
}

export const tileCount = (design: Pick<Design, 'xTiles' | 'yTiles'>): number => design.xTiles * design.yTiles;

/**
 * The geometry sims actually exports: `-config_<cache>_size=0` (or associativity 0) is skipped by
 * sims, so the generated headers keep the default (row p11-l15-0x4-addi: model identical to default).
 */
export function effectiveCaches(requested: Partial<Record<CacheName, readonly [number, number]>>): CacheMap {
  const out = {} as Record<CacheName, readonly [number, number]>;
  for (const name of Object.keys(DEFAULT_CACHES) as CacheName[]) {
    const [defSize, defAssoc] = DEFAULT_CACHES[name];
    const [size, assoc] = requested[name] ?? [defSize, defAssoc];
    out[name] = [size || defSize, assoc || defAssoc];
  }
  return out;
}

/** The ISA a core's programs are written for. */
export const coreIsa = (core: ModelCore): 'rv32' | 'rv64' | 'sparc' =>
  core === 'ariane' ? 'rv64' : core === 'sparc' ? 'sparc' : 'rv32';
