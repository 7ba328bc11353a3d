/**
 * The cost model: simulated cycles to each tile's trap, and the wall-clock seconds builds and runs
 * took on the real machine. Every constant is fitted to named calibration rows; the README walks
 * through each one. Cycles are counted from the testbench's event origin (see constants.ts), so a
 * measured sim time converts to cycles and back exactly.
 */
import { DEFAULT_CACHES } from '../../geometry.ts';
import { findProgram, type MemoryUse, type Program, type TestClass } from './catalog.ts';
import { eventCycles } from './constants.ts';
import { tileCount, type Design, type ModelCore } from './design.ts';

/** A measured sim time of a catalog program, as cycles. */
function measuredCycles(name: string, mesh: string): number {
  const time = findProgram(name)?.measured?.[mesh];
  if (time === undefined) throw new Error(`the catalog has no ${mesh} measurement of ${name}`);
  return eventCycles(time);
}

/**
 * How a program's per-hart cycles grow from one tile to n: C(n) = a(n) + b(n)·C(1).
 * a(4) and b(4) are solved from the two programs measured on both 1x1 and 2x2 (addi.S and
 * memwalk16k.S). Larger meshes follow a power law in the extra tiles whose exponent makes a 4x4's
 * slowest tiles miss the 50000-cycle monitor timeout on addi.S while its other tiles make it
 * (row p44-addi: 12 of 16 tiles hit the good trap first).
 */
const MESH_EXPONENT = 1.8;
const MESH_2X2 = (() => {
  const [a1, a4] = [measuredCycles('addi.S', '1x1'), measuredCycles('addi.S', '2x2')];
  const [m1, m4] = [measuredCycles('memwalk16k.S', '1x1'), measuredCycles('memwalk16k.S', '2x2')];
  const b = (m4 - a4) / (m1 - a1);
  return { a: a4 - b * a1, b };
})();

function meshScale(tiles: number, b4 = MESH_2X2.b): { a: number; b: number } {
  const k = ((tiles - 1) / 3) ** MESH_EXPONENT;
  return { a: MESH_2X2.a * k, b: 1 + (b4 - 1) * k };
}

/**
 * A program's own b(4), solved from its 1x1 and 2x2 times where both were measured (addi.S and
 * memwalk16k.S give MESH_2X2.b itself; matmul_rv32.S, whose misses are a smaller share of its
 * time, 1.0106), else MESH_2X2.b. A program scaled from another takes that one's.
 */
function programMeshB(program: Program): number {
  const source = program.scaledFrom ? findProgram(program.scaledFrom)! : program;
  const m = source.measured;
  if (m?.['1x1'] === undefined || m['2x2'] === undefined) return MESH_2X2.b;
  return (eventCycles(m['2x2']) - MESH_2X2.a) / eventCycles(m['1x1']);
}

/** PicoRV32's cycles from reset to the first test case: an assumption (no run isolates it). */
const PICO_BOOT = 2000;

/** Cycles per TEST_ case by instruction mix, from the PicoRV32 programs measured for each mix. */
const PICO_PER_TEST = (() => {
  const rep: Record<TestClass, string> = {
    alu: 'addi.S',
    load: 'lw.S',
    store: 'sw.S',
    muldiv: 'mul.S',
    amo: 'amoadd_w.S',
  };
  const out = {} as Record<TestClass, number>;
  for (const [cls, name] of Object.entries(rep) as [TestClass, string][]) {
    const program = findProgram(name)!;
    out[cls] = (measuredBase(program) - PICO_BOOT) / program.tests!;
  }
  return out;
})();

/**
 * Ariane's p-env tests: addi (26 cases) and add (39 cases) fix the per-case cost and the boot;
 * other mixes keep PicoRV32's ratios to the ALU cost.
 */
const ARIANE = (() => {
  const addi = measuredCycles('rv64ui-p-addi', '1x1');
  const add = measuredCycles('rv64ui-p-add', '1x1');
  const perAlu = (add - addi) / (39 - 26);
  return { boot: addi - 26 * perAlu, perAlu };
})();

/** OpenSPARC T1 never reaches its trap under Verilator 5.006; its boot only places the stall. */
const SPARC_BOOT = 30_000;

function bootCycles(core: ModelCore): number {
  return core === 'ariane' ? ARIANE.boot : core === 'sparc' ? SPARC_BOOT : PICO_BOOT;
}

function perTest(core: ModelCore, cls: TestClass): number {
  if (core === 'ariane') return (ARIANE.perAlu * PICO_PER_TEST[cls]) / PICO_PER_TEST.alu;
  return PICO_PER_TEST[cls];
}

/** A measured program's cycles on one tile, from its 1x1 time or by inverting the mesh scale. */
function measuredBase(program: Program): number {
  const m = program.measured!;
  if (m['1x1'] !== undefined) return eventCycles(m['1x1']);
  const { a, b } = MESH_2X2;
  return (eventCycles(m['2x2']!) - a) / b;
}

/** A core's cycles per PicoRV32 cycle of straight-line work: the ratio of their measured ALU per-case costs. */
function coreSpeedRatio(core: ModelCore): number {
  return perTest(core, 'alu') / PICO_PER_TEST.alu;
}

/** Per-hart cycles of a program on one tile of a default build. */
export function baseCycles(program: Program, core: ModelCore): number {
  // A program measured only as its PicoRV32 twin: the twin's work after boot at this core's speed.
  if (program.scaledFrom)
    return bootCycles(core) + (baseCycles(findProgram(program.scaledFrom)!, 'pico') - PICO_BOOT) * coreSpeedRatio(core);
  if (program.measured && (program.measured['1x1'] !== undefined || program.measured['2x2'] !== undefined))
    return measuredBase(program);
  if (program.tests !== undefined && program.testClass)
    return bootCycles(core) + program.tests * perTest(core, program.testClass);
  return bootCycles(core) + (program.estimatedWork ?? 0);
}

/**
 * The L2's tag and state arrays are cleared at boot, so every run pays for the L2's sets
 * (size / (64 B × ways)). Cycles against log2(sets), through the measured points: 128 sets −124
 * (rows p22-l2-32768x4-*, p22-l2-65536x8-*), 256 sets 0 (default), 512 sets +221
 * (p22-l2-131072x4-memwalk16k), 4096 sets +558 (p11-l2-1048576x4-addi); straight lines between them
 * and beyond the ends. A program measured at some of these points on its own uses its values there.
 */
const L2_SETS_POINTS: ReadonlyArray<readonly [number, number]> = [
  [7, -124],
  [8, 0],
  [9, 221],
  [12, 558],
];

export function l2SetsOffset(size: number, assoc: number, own: MemoryUse['l2SetsOffsets'] = []): number {
  const x = Math.log2(size / (64 * assoc));
  const pts = L2_SETS_POINTS.map(([px, py]) => [px, own.find(([ox]) => ox === px)?.[1] ?? py] as const);
  let i = 0;
  while (i < pts.length - 2 && x > pts[i + 1]![0]) i++;
  const [[x0, y0], [x1, y1]] = [pts[i]!, pts[i + 1]!];
  return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
}

/**
 * Cycles one L2 line costs when a later pass misses it: memwalk160k.S on 2x2 with 32 KB L2 slices
 * (128 KB in all, under its 160 KB) took 216649 cycles more than the sets offset explains, for its
 * 2560 lines.
 */
const L2_MISS_CYCLES = 216_649 / 2560;

/** Cycles one L1.5 line saves when a later pass hits it: memwalk16k.S, 2x2, L1.5 16 KB saved 23752 for 1024 lines. */
const L15_HIT_CYCLES = 23_752 / 1024;

const L15_LINE = 16;
const DEFAULT_L15_SIZE = DEFAULT_CACHES.l15[0];

/** What an L1.5 that holds the data saves: the program's measured figure, else memwalk16k's per line. */
function l15FitSaving(mem: MemoryUse): number {
  return mem.l15FitSaving ?? mem.l15Lines * (mem.passes - 1) * L15_HIT_CYCLES;
}

/** The cache rules' cycles for one hart (negative saves time). PicoRV32's tile has no L1I or L1D. */
export function cacheCycles(program: Program, design: Design): number {
  const { l15, l2 } = design.caches;
  // Ariane's long boot hides the L2 clear: a 128 KB L2 left its times unchanged (a11-l2-131072x4-*).
  const mem = program.memory;
  const [size, ways] = l15;
  const fits = mem !== undefined && mem.l15Lines * L15_LINE <= size;
  const ownOffsets = fits ? [...(mem.l2SetsOffsetsFit ?? []), ...(mem.l2SetsOffsets ?? [])] : mem?.l2SetsOffsets;
  let cycles = design.core === 'ariane' ? 0 : l2SetsOffset(l2[0], l2[1], ownOffsets);
  if (!mem) return cycles;
  // L2 slices are address-interleaved across tiles: the data stays when it fits in all of them.
  const tiles = tileCount(design);
  const meshLines = mem.perHart ? mem.l2Lines * tiles : mem.l2Lines;
  if (meshLines * 64 > tiles * l2[0]) cycles += mem.l2Lines * (mem.passes - 1) * L2_MISS_CYCLES;
  const fitSaving = fits ? l15FitSaving(mem) : 0;
  const waySaving = ways > 4 ? mem.l15WideWaySaving : 0;
  const drift =
    size < DEFAULT_L15_SIZE
      ? mem.l15DriftBelow * Math.log2(DEFAULT_L15_SIZE / size)
      : fits
        ? 0
        : -mem.l15DriftAbove * Math.log2(size / DEFAULT_L15_SIZE);
  // Where the data fits, the better of the two savings; elsewhere the ways' measured effect, which
  // may be a cost (matmul_rv32.S at 8 KB, 8 ways).
  cycles += drift - (fits ? Math.max(fitSaving, waySaving) : waySaving);
  if (design.core === 'ariane') cycles += arianeL1Cycles(program, design);
  return cycles;
}

/**
 * Ariane's L1D and L1I (write-through, private): a pass whose data no longer fits the L1D goes to
 * the L1.5 for every line. Never measured (the riscv-tests touch a few lines): an extrapolation that
 * charges what an L1.5 holding the data saves.
 */
function arianeL1Cycles(program: Program, design: Design): number {
  const mem = program.memory!;
  const fitsL1d = mem.l15Lines * L15_LINE <= design.caches.l1d[0];
  return fitsL1d ? 0 : l15FitSaving(mem);
}

export interface TileCycles {
  /** Cycles to each tile's trap, in tile order. */
  readonly finish: readonly number[];
  /** The slowest tile's cycles before the cache rules (what a failing test's timing scales). */
  readonly work: number;
  /** The cache rules' cycles (cacheCycles). */
  readonly cache: number;
}

/**
 * Cycles from the event origin to each tile's trap. Tiles finish in index order, 0.35 % of the run
 * apart per rank (2x2 addi.S: tile 0 at 10009 cycles, the last at 10044); on a mesh of four or more
 * rows the first row finishes last and the others at 60 % of its time (row p44-addi: spc 4-15 hit
 * the good trap before 50000 cycles, spc 0-3 after).
 */
export function tileCycles(program: Program, design: Design): TileCycles {
  const tiles = tileCount(design);
  const { a, b } = meshScale(tiles, programMeshB(program));
  const work = a + b * baseCycles(program, design.core) + (program.syncPerTile ?? 0) * (tiles - 1);
  const cache = cacheCycles(program, design);
  const last = work + cache;
  const step = (0.0035 * last) / Math.max(1, tiles - 1);
  const finish = Array.from({ length: tiles }, (_, tile) => {
    if (design.yTiles >= 4) return tile < design.xTiles ? last - step * (design.xTiles - 1 - tile) : 0.6 * last;
    return last - step * (tiles - 1 - tile);
  });
  return { finish, work, cache };
}

/**
 * How far into its run a single-hart test on shared data fails on a mesh: 2x2 amoadd_w.S took the
 * bad trap at 7543 cycles, 96 % of the 7851 it would take to pass.
 */
export const SHARED_DATA_FAIL_FRACTION = (() => {
  const { a, b } = MESH_2X2;
  return eventCycles(3_929_250) / (a + b * measuredCycles('amoadd_w.S', '1x1'));
})();

// ---- Wall-clock seconds on the real machine (multiplied by the speed factor when replayed) ----

/** Build seconds = intercept + per tile × tiles, least squares over the idle-machine builds. */
const BUILD_FIT: Record<ModelCore, { base: number; perTile: number }> = {
  // p11-* 45.5-50.3 s, p22-* 82.8-92.0 s, p44-* 270.6-314.5 s
  pico: { base: 28.5, perTile: 16.45 },
  generic: { base: 28.5, perTile: 16.45 },
  // a11-* 112.4-119 s, a22-* 245 s
  ariane: { base: 72.6, perTile: 43.1 },
  // s11-* 435 s; per tile in Ariane's proportion (no multi-tile T1 build was timed)
  sparc: { base: 273, perTile: 162 },
};

/** A 1 MB L2 made a 1x1 PicoRV32 build about 4 s slower (four doublings above 64 KB). */
const BUILD_SECONDS_PER_L2_DOUBLING = 1;

export function buildSeconds(design: Design): number {
  const fit = BUILD_FIT[design.core];
  const tiles = tileCount(design);
  const l2Doublings = Math.max(0, Math.log2(design.caches.l2[0] / DEFAULT_CACHES.l2[0]));
  return fit.base + fit.perTile * tiles + BUILD_SECONDS_PER_L2_DOUBLING * l2Doublings * tiles;
}

/** Where in a build each kind of failure stops it, as a fraction of the full build. */
export const FAILURE_POINT = {
  /** Verilator elaboration errors (PINNOTFOUND, duplicate pins, source errors): 8 s of a ~45 s build. */
  elaboration: 0.18,
  /** NEEDTIMINGOPT is reported after the warnings: 15 s. */
  timing: 0.33,
} as const;

/** Seconds before the first simulated cycle: the intercept of the 1x1 and 2x2 PicoRV32 fits (~1.3 s). */
export const RUN_STARTUP_SECONDS = 1.3;

/**
 * A unit-test build: Verilator and g++ on one module and its testbench. Never measured: estimated
 * from PicoRV32's share of a 1x1 build (its 16.45 s per tile, with the testbench on top).
 */
export const UNIT_BUILD_SECONDS = 20;

/** Seconds per simulated cycle by core and tile count, from the runs that lasted longest. */
const RUN_RATES: Record<'pico' | 'ariane' | 'sparc', ReadonlyArray<readonly [number, number]>> = {
  // p11-l15-8192x2-memwalk16k (1M cycles, 12.3 s), p22-memwalk160k (478k, 21.2 s), p44-addi (50k, 17.5 s)
  pico: [
    [1, 1.1e-5],
    [4, 4.15e-5],
    [16, 3.22e-4],
  ],
  // a11-rv64ui-p-add (36.8k cycles, 2.4 s), a22-rv64ui-p-addi (50k, 17 s)
  ariane: [
    [1, 3.19e-5],
    [4, 3.12e-4],
  ],
  // s11-princeton-test-test (1.5M cycles, 129 s)
  sparc: [[1, 8.51e-5]],
};

/** Interpolate log(rate) over log(tiles); a core with one point takes PicoRV32's shape. */
function secondsPerCycle(core: ModelCore, tiles: number): number {
  const points = RUN_RATES[core === 'generic' ? 'pico' : core];
  if (points.length === 1) return (points[0]![1] * secondsPerCycle('pico', tiles)) / RUN_RATES.pico[0]![1];
  const x = Math.log(tiles);
  let i = 0;
  while (i < points.length - 2 && tiles > points[i + 1]![0]) i++;
  const [[n0, r0], [n1, r1]] = [points[i]!, points[i + 1]!];
  const slope = (Math.log(r1) - Math.log(r0)) / (Math.log(n1) - Math.log(n0));
  return Math.exp(Math.log(r0) + slope * (x - Math.log(n0)));
}

/** Seconds a run that simulates `cycles` cycles took. */
export function runSeconds(core: ModelCore, tiles: number, cycles: number): number {
  return RUN_STARTUP_SECONDS + Math.max(0, cycles) * secondsPerCycle(core, tiles);
}
