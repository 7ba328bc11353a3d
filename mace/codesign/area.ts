/**
 * The cache area model: each cache is a data array and a tag array, priced by CACTI when a binary is
 * at hand (MACE_CACTI, or `cacti` on PATH) and otherwise by the analytical estimate of one square
 * micron per bit. A search prices every design, and its budget, with one model chosen when it starts,
 * so one comparison never mixes CACTI's areas with the estimate's.
 */
import { execFile } from 'node:child_process';
import { access, constants, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { CACHE_NAMES, type CacheName } from '../openpiton/geometry.ts';
import type { Design } from './design.ts';

/** Line sizes of OpenPiton's caches: 16-byte lines in the L1s and the L1.5, 64-byte in the L2. */
export const LINE_BYTES: Readonly<Record<CacheName, number>> = { l1i: 16, l1d: 16, l15: 16, l2: 64 };
export const ADDRESS_BITS = 40;
export const STATE_BITS = 2;
/** 32 nm, in microns, as CACTI takes it. */
export const TECHNOLOGY_UM = 0.032;

/** A single-port read-write SRAM: `depth` words of `width` bits. */
export interface SramArray {
  readonly depth: number;
  readonly width: number;
}

export class GeometryError extends Error {
  override name = 'GeometryError';
}

/** The data and tag arrays of one cache; throws GeometryError when the geometry is not whole sets. */
export function cacheArrays(cache: CacheName, size: number, assoc: number): { data: SramArray; tag: SramArray } {
  const line = LINE_BYTES[cache];
  const sets = size / (line * assoc);
  if (!Number.isInteger(sets) || sets < 1 || !Number.isInteger(Math.log2(sets)))
    throw new GeometryError(
      `${cache} ${size},${assoc} is not a whole power-of-two number of ${assoc}-way sets of ${line}-byte lines`,
    );
  const tagBits = ADDRESS_BITS - Math.log2(sets) - Math.log2(line) + STATE_BITS;
  return {
    data: { depth: size / line, width: line * 8 },
    tag: { depth: sets, width: assoc * tagBits },
  };
}

export type AreaSource = 'cacti' | 'analytical';

export interface ArrayCost {
  readonly areaUm2: number;
  readonly readEnergyNj: number;
}

export interface AreaModel {
  readonly source: AreaSource;
  /** Throws when the model cannot price the array (CACTI refused it). */
  price(array: SramArray): Promise<ArrayCost>;
}

export interface DesignArea {
  readonly areaUm2: number;
  readonly readEnergyNj: number;
  readonly source: AreaSource;
}

/** One square micron per bit; read energy 0.001 nJ per 8192 bits read. */
export const analyticalModel: AreaModel = {
  source: 'analytical',
  price: async ({ depth, width }) => ({ areaUm2: depth * width, readEnergyNj: (0.001 * depth * width) / 8192 }),
};

/** The area of every cache of a design, over all tiles. */
export async function designArea(design: Design, tiles: number, model: AreaModel): Promise<DesignArea> {
  let areaUm2 = 0;
  let readEnergyNj = 0;
  for (const cache of CACHE_NAMES) {
    const cost = await cacheArea(cache, design.caches[cache][0], design.caches[cache][1], model);
    areaUm2 += cost.areaUm2 * tiles;
    readEnergyNj += cost.readEnergyNj * tiles;
  }
  return { areaUm2, readEnergyNj, source: model.source };
}

/** One tile's data and tag arrays of one cache. */
export async function cacheArea(cache: CacheName, size: number, assoc: number, model: AreaModel): Promise<ArrayCost> {
  const { data, tag } = cacheArrays(cache, size, assoc);
  const [d, t] = [await model.price(data), await model.price(tag)];
  return { areaUm2: d.areaUm2 + t.areaUm2, readEnergyNj: d.readEnergyNj + t.readEnergyNj };
}

// ---- CACTI ----

const run = promisify(execFile);

/** MACE_CACTI, else `cacti` on PATH, else null. */
export async function findCacti(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  if (env.MACE_CACTI) return env.MACE_CACTI;
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'cacti');
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next directory
    }
  }
  return null;
}

/** A CACTI 7 configuration for one single-port RAM at 32 nm. */
export function cactiConfig({ depth, width }: SramArray): string {
  const bytes = (depth * width) / 8;
  const block = Math.max(1, Math.ceil(width / 8));
  return [
    `-size (bytes) ${bytes}`,
    `-block size (bytes) ${block}`,
    '-associativity 1',
    '-read-write port 1',
    '-exclusive read port 0',
    '-exclusive write port 0',
    '-single ended read ports 0',
    '-UCA bank count 1',
    `-technology (u) ${TECHNOLOGY_UM}`,
    '-cache type "ram"',
    `-output/input bus width ${width}`,
    '-Data array cell type - "itrs-hp"',
    '-Data array peripheral type - "itrs-hp"',
    '-Tag array cell type - "itrs-hp"',
    '-Tag array peripheral type - "itrs-hp"',
    '-operating temperature (K) 360',
    '-access mode (normal, sequential, fast) - "normal"',
    '-design objective (weight delay, dynamic power, leakage power, cycle time, area) 0:0:0:100:0',
    '-deviate (delay, dynamic power, leakage power, cycle time, area) 20:100000:100000:100000:100000',
    '-Optimize ED or ED^2 (ED, ED^2, NONE): "NONE"',
    '-Cache model (NUCA, UCA)  - "UCA"',
    '-Wire signaling (fullswing, lowswing, default) - "Global_30"',
    '-Wire inside mat - "semi-global"',
    '-Wire outside mat - "semi-global"',
    '-Interconnect projection - "conservative"',
    '-Add ECC - "true"',
    '-Print level (DETAILED, CONCISE) - "DETAILED"',
    '',
  ].join('\n');
}

/** The data array's area (mm², as CACTI prints it) and the read energy of one access (nJ). */
export function parseCactiOutput(text: string): ArrayCost {
  const area =
    /Data array: Area \(mm2\):\s*([\d.eE+-]+)/.exec(text) ??
    /Cache height x width \(mm\):\s*([\d.eE+-]+)\s*x\s*([\d.eE+-]+)/.exec(text);
  const energy = /Total dynamic read energy per access \(nJ\):\s*([\d.eE+-]+)/.exec(text);
  if (!area || !energy)
    throw new Error(
      `CACTI printed no ${area ? 'read energy ("Total dynamic read energy per access (nJ):")' : 'area ("Data array: Area (mm2):")'}`,
    );
  const mm2 = area[2] === undefined ? Number(area[1]) : Number(area[1]) * Number(area[2]);
  return { areaUm2: mm2 * 1e6, readEnergyNj: Number(energy[1]) };
}

/** CACTI as an area model; every array it prices is remembered, since a search asks for the same ones often. */
export function cactiModel(binary: string): AreaModel {
  const known = new Map<string, Promise<ArrayCost>>();
  const price = async (array: SramArray): Promise<ArrayCost> => {
    const dir = await mkdtemp(join(tmpdir(), 'mace-cacti-'));
    try {
      const file = join(dir, 'array.cfg');
      await writeFile(file, cactiConfig(array));
      const { stdout } = await run(binary, ['-infile', file], { cwd: dir, maxBuffer: 16 << 20, timeout: 120_000 });
      return parseCactiOutput(stdout);
    } catch (error) {
      throw new Error(
        `CACTI (${binary}) cannot price a ${array.depth}x${array.width} array: ${(error as Error).message}`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
  return {
    source: 'cacti',
    price: (array) => {
      const key = `${array.depth}x${array.width}`;
      if (!known.has(key)) known.set(key, price(array));
      return known.get(key)!;
    },
  };
}

/** CACTI when one is found, else the analytical estimate. */
export async function chooseAreaModel(env: NodeJS.ProcessEnv = process.env): Promise<AreaModel> {
  const binary = await findCacti(env);
  return binary ? cactiModel(binary) : analyticalModel;
}
