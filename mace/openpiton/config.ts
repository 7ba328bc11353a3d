/**
 * PitonConfig: one OpenPiton build configuration, its `sims` flags, and the build id that names its
 * model directory. The id is compatible with the original Python adapter (the same configuration
 * gives the same `mace_` + 12 hex id), so a lab's existing models are found and reused.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  CACHE_NAMES,
  CORE_KINDS,
  DEFAULT_CONFIG_RTL,
  GENERIC_CORE_NAME_RE,
  DEFAULT_NETWORK,
  MAX_TILES_PER_AXIS,
  NETWORKS,
  fullCaches,
  type CacheMap,
  type CacheName,
  type CoreKind,
  type Network,
  type PartialCacheMap,
} from './geometry.ts';
import { formatIssues, shown } from './issues.ts';

/** Adds Verilator line coverage to a build; part of the identity, so a coverage model is its own build. */
export const COVERAGE_LINE_FLAG = '-vlt_build_args=--coverage-line';
export const BUILD_ID_PREFIX = 'mace_';

export const ARIANE_WAY_RULE = 'On Ariane, neither the L1D nor the L1I may have more ways than the L1.5.';

const axis = (name: string) =>
  z.unknown().transform((value, ctx) => {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_TILES_PER_AXIS) return value;
    ctx.addIssue({
      code: 'custom',
      message: `${name} must be an integer 1..${MAX_TILES_PER_AXIS}, got ${shown(value)}`,
    });
    return z.NEVER;
  });

const geometry = z.unknown().transform((value, ctx) => {
  const ok =
    Array.isArray(value) &&
    value.length === 2 &&
    value.every((n) => typeof n === 'number' && Number.isInteger(n) && n > 0);
  if (ok) return [value[0], value[1]] as const;
  ctx.addIssue({
    code: 'custom',
    message: `must be [size, associativity] with both positive integers, got ${shown(value)}`,
  });
  return z.NEVER;
});

export const PitonConfigSchema = z
  .object({
    /** `-sys=`. Any name other than manycore is a unit-test environment (piton/tools/src/sims/<sys>.config). */
    sys: z.string().min(1).default('manycore'),
    core: z
      .enum(CORE_KINDS, {
        error: (iss) => `core must be one of ${CORE_KINDS.join(', ')}; got ${shown(iss.input)}`,
      })
      .default('ariane'),
    /** The Generic Tile core's name when core is generic (`-generic_core=<name>`); empty otherwise. */
    generic_core: z
      .string()
      .refine((name) => name === '' || GENERIC_CORE_NAME_RE.test(name), {
        error: (iss) => `generic_core must be a lower-case identifier such as ibex; got ${shown(iss.input)}`,
      })
      .default(''),
    x_tiles: axis('x_tiles').default(1),
    y_tiles: axis('y_tiles').default(1),
    network_config: z
      .enum(NETWORKS, {
        error: (iss) => `network_config must be one of ${NETWORKS.join(', ')}; got ${shown(iss.input)}`,
      })
      .default(DEFAULT_NETWORK),
    /** RTL defines, in the order they are passed. MINIMAL_MONITORING is always among them. */
    config_rtl: z.array(z.string()).default([...DEFAULT_CONFIG_RTL]),
    caches: z
      .record(z.string(), geometry)
      .superRefine((caches, ctx) => {
        for (const name of Object.keys(caches)) {
          if (!(CACHE_NAMES as readonly string[]).includes(name)) {
            ctx.addIssue({
              code: 'custom',
              path: [name],
              message: `unknown cache ${shown(name)}; valid: ${CACHE_NAMES.join(', ')}`,
            });
          }
        }
      })
      .default({})
      .transform((caches) => fullCaches(caches as PartialCacheMap)),
    /** Appended to the flags verbatim, in order. */
    extra_flags: z.array(z.string()).default([]),
    /** Identity of the source the model is built from; the loop leaves them empty, configure() fills them. */
    source_rev: z.string().default(''),
    ariane_rev: z.string().default(''),
    verilator_version: z.string().default(''),
    /** A diff that is part of the build's identity (RTL edits), so an edited design never shares a model. */
    diff: z.string().default(''),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.core === 'generic' && !config.generic_core)
      ctx.addIssue({ code: 'custom', path: ['generic_core'], message: 'core generic needs the generic_core name' });
    if (config.core !== 'generic' && config.generic_core)
      ctx.addIssue({
        code: 'custom',
        path: ['generic_core'],
        message: `generic_core is only for core generic; core is ${config.core}`,
      });
  })
  .transform((config) => ({
    ...config,
    config_rtl:
      config.config_rtl.includes('MINIMAL_MONITORING') || config.sys !== 'manycore'
        ? config.config_rtl
        : ['MINIMAL_MONITORING', ...config.config_rtl],
  }));

export type PitonConfigInput = z.input<typeof PitonConfigSchema>;
export interface PitonConfig {
  readonly sys: string;
  readonly core: CoreKind;
  /** The Generic Tile core's name when core is generic; empty otherwise. */
  readonly generic_core: string;
  readonly x_tiles: number;
  readonly y_tiles: number;
  readonly network_config: Network;
  readonly config_rtl: readonly string[];
  readonly caches: CacheMap;
  readonly extra_flags: readonly string[];
  readonly source_rev: string;
  readonly ariane_rev: string;
  readonly verilator_version: string;
  readonly diff: string;
}

export class PitonConfigError extends Error {
  override name = 'PitonConfigError';
}

/** Validate and normalise a configuration; the error names each field at fault. */
export function makeConfig(input: PitonConfigInput = {}): PitonConfig {
  const result = PitonConfigSchema.safeParse(input);
  if (!result.success)
    throw new PitonConfigError(`invalid PitonConfig: ${formatIssues(result.error).split('\n').join('; ')}`);
  return Object.freeze(result.data) as PitonConfig;
}

export const numTiles = (config: PitonConfig): number => config.x_tiles * config.y_tiles;

/** One `1` per tile: every tile must reach its good trap. */
export const defaultFinishMask = (config: PitonConfig): string => '1'.repeat(numTiles(config));

/**
 * SHA-256 of the identity as Python's `json.dumps(identity, sort_keys=True, separators=(",", ":"))`
 * writes it (ASCII-escaped), so ids match the original's. A Generic Tile core adds its name to the
 * identity; the built-in cores' identities (and ids) are the original's.
 */
export function configKey(config: PitonConfig): string {
  const caches: Record<string, [number, number]> = {};
  for (const name of [...CACHE_NAMES].sort() as CacheName[])
    caches[name] = [config.caches[name][0], config.caches[name][1]];
  const identity = {
    sys: config.sys,
    core: config.core,
    x_tiles: config.x_tiles,
    y_tiles: config.y_tiles,
    network_config: config.network_config,
    config_rtl: [...config.config_rtl].sort(),
    caches,
    extra_flags: [...config.extra_flags],
    source_rev: config.source_rev,
    ariane_rev: config.ariane_rev,
    verilator_version: config.verilator_version,
    diff: config.diff,
    ...(config.core === 'generic' ? { generic_core: config.generic_core } : {}),
  };
  return createHash('sha256').update(pythonJson(identity), 'utf8').digest('hex');
}

/** `mace_` and the first 12 hex digits of the key: the model directory under build/<sys>/. */
export function buildId(config: PitonConfig): string {
  return BUILD_ID_PREFIX + configKey(config).slice(0, 12);
}

/** The configuration's `sims` flags in the original's stable order. */
export function simsFlags(config: PitonConfig): string[] {
  if (config.sys !== 'manycore') return [`-sys=${config.sys}`, ...config.extra_flags];
  const flags = [
    `-sys=manycore`,
    `-x_tiles=${config.x_tiles}`,
    `-y_tiles=${config.y_tiles}`,
    `-network_config=${config.network_config}`,
  ];
  if (config.core === 'ariane') flags.push('-ariane');
  else if (config.core === 'pico') flags.push('-pico', '-rv32_target_triple=riscv64-unknown-elf');
  else if (config.core === 'generic') flags.push(`-generic_core=${config.generic_core}`);
  for (const define of config.config_rtl) flags.push(`-config_rtl=${define}`);
  for (const name of [...CACHE_NAMES].sort() as CacheName[]) {
    const [size, assoc] = config.caches[name];
    flags.push(`-config_${name}_size=${size}`, `-config_${name}_associativity=${assoc}`);
  }
  flags.push(...config.extra_flags);
  return flags;
}

/**
 * Ariane's L1.5 adapter asserts this rule only outside Verilator, so a Verilator build that breaks
 * it compiles and runs; the adapter refuses it before any build. Empty for other cores and for
 * unit-test systems.
 */
export function wayViolations(config: PitonConfig): string[] {
  if (config.core !== 'ariane' || config.sys !== 'manycore') return [];
  const l15Ways = config.caches.l15[1];
  return (['l1d', 'l1i'] as const)
    .filter((name) => config.caches[name][1] > l15Ways)
    .map((name) => `${name} has ${config.caches[name][1]} ways, more than the L1.5's ${l15Ways}`);
}

/** JSON as Python's json.dumps writes it with sort_keys, compact separators and ensure_ascii. */
export function pythonJson(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string')
    return JSON.stringify(value).replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${pythonJson(k)}:${pythonJson(v)}`).join(',')}}`;
}
