/**
 * The programs the model knows by name: what each one is, where the checkout keeps it, and the real
 * measurements it was calibrated on. A program sims finds on disk but that is not listed here is
 * modelled from its size (see unknownProgram).
 *
 * Measured sim times are the exact `Simulation -> ...` times of real runs (Verilator 5.006, default
 * caches, `-finish_mask` one `1` per tile) from ../shared/openpiton-calibration.csv and the logs
 * beside it; the timing model derives everything else from them.
 */

import { TIME_PER_CYCLE } from './constants.ts';

export type Isa = 'rv32' | 'rv64' | 'sparc';

/**
 * How a program behaves on more than one tile:
 * - `isa`: a single-hart self-checking test; every hart runs it on its own and passes on its own.
 * - `amo`: an ISA test whose atomics read-modify-write shared test data: harts see each other's
 *   updates, so on a mesh one of them takes the bad trap (amoadd_w.S, tile 2 on 2x2).
 * - `riscv_test`: an Ariane riscv-tests `p` program: only hart 0 runs it, the others are parked.
 * - `gate`: the project's gate programs, written for every hart, with barriers and shared data.
 * - `memwalk`: a calibration walk over an array, as `isa` but with a data footprint.
 * - `hello`: OpenPiton's hello_world.c: every hart prints to the UART.
 * - `sparc`: an OpenSPARC T1 diag.
 */
export type ProgramKind = 'isa' | 'amo' | 'riscv_test' | 'gate' | 'memwalk' | 'hello' | 'sparc';

/** The instruction mix of an ISA test, which sets its per-test cost where it was never measured. */
export type TestClass = 'alu' | 'load' | 'store' | 'muldiv' | 'amo';

/** A program's data traffic, for the cache rules. */
export interface MemoryUse {
  /** Distinct 16-byte L1.5 lines one pass touches. */
  readonly l15Lines: number;
  /** Distinct 64-byte L2 lines one pass touches. */
  readonly l2Lines: number;
  /** How many times the program walks its data (reuse happens from the second pass on). */
  readonly passes: number;
  /** Measured cycles gained per halving of the L1.5 below 8 KB (misses drift up). */
  readonly l15DriftBelow: number;
  /** Measured cycles saved per doubling of the L1.5 above 8 KB when the data still does not fit. */
  readonly l15DriftAbove: number;
  /**
   * Measured cycles an L1.5 of more than 4 ways saves at the default size (memwalk16k.S: its 4-way
   * index math gives some extra reuse); negative where the wider L1.5 was slower (matmul_rv32.S).
   */
  readonly l15WideWaySaving: number;
  /**
   * Measured cycles an L1.5 that holds the data saves; without it, l15Lines × (passes − 1) at the
   * per-line saving memwalk16k.S measured.
   */
  readonly l15FitSaving?: number;
  /**
   * The program's own measured L2 clear offsets, as (log2 sets, cycles) at some of the shared points
   * (128, 256, 512, 4096 sets), which they replace; the others stay.
   */
  readonly l2SetsOffsets?: ReadonlyArray<readonly [number, number]>;
  /** The same, measured with the data held by the L1.5 (where they differ from the others). */
  readonly l2SetsOffsetsFit?: ReadonlyArray<readonly [number, number]>;
  /** Every hart walks data of its own (not one shared array), so the mesh's L2 must hold tiles × l2Lines. */
  readonly perHart?: boolean;
}

/** A real run of a program on a mesh with a given L1.5 and L2 (PicoRV32 has no other caches). */
interface MeasuredDesign {
  readonly mesh: string;
  readonly l15: readonly [number, number];
  readonly l2: readonly [number, number];
  readonly time: number;
}

export interface Program {
  /** The file name sims is asked for and finds (precompiled riscv-tests have no extension). */
  readonly name: string;
  readonly isa: Isa;
  readonly kind: ProgramKind;
  /** Where the checkout keeps it, relative to the checkout root; absent for programs that arrive through -asm_diag_root. */
  readonly dir?: string;
  /** ISA tests: the mix and number of TEST_ cases (counted in OpenPiton's own copies). */
  readonly testClass?: TestClass;
  readonly tests?: number;
  /** Real simulated finish times by mesh (`1x1`, `2x2`), default caches. */
  readonly measured?: Readonly<Record<string, number>>;
  /** Estimated per-hart cycles after the core's boot on a 1x1 default build, for programs that are neither measured nor ISA tests. */
  readonly estimatedWork?: number;
  /**
   * The PicoRV32 program (same algorithm, same data) whose measured cycles this one's are scaled
   * from, for a program never measured on its own core.
   */
  readonly scaledFrom?: string;
  /** Extra cycles per additional tile: barrier and shared-data traffic of the gate programs (an estimate). */
  readonly syncPerTile?: number;
  readonly memory?: MemoryUse;
  /** `pass` and `fail` label addresses (good and bad trap); real ones where a log shows them. */
  readonly goodTrap: number;
  readonly badTrap: number;
  /** One line per hart written to fake_uart.log. */
  readonly uart?: (hart: number, harts: number) => string[];
}

const PICO_DIAGS = 'piton/verif/diag/assembly/riscv/pico';
const RISCV_TESTS = 'piton/design/chip/tile/ariane/tmp/riscv-tests/build/isa';
const ARIANE_C_DIAGS = 'piton/verif/diag/c/riscv/ariane';
const SPARC_DIAGS = 'piton/verif/diag/assembly/princeton';

const PICO_BASE = 0x4000_0000;
const ARIANE_BASE = 0x8000_0000;

/** Trap addresses of a test that was never disassembled: after its cases, `fail` then `pass`. */
function traps(base: number, tests: number): { goodTrap: number; badTrap: number } {
  const fail = base + 0x40 + tests * 0x18;
  return { badTrap: fail, goodTrap: fail + 0x30 };
}

/** OpenPiton's PicoRV32 ISA tests and their TEST_ case counts. */
const PICO_TESTS: ReadonlyArray<readonly [string, TestClass, number]> = [
  ['add', 'alu', 39],
  ['addi', 'alu', 26],
  ['and', 'alu', 28],
  ['andi', 'alu', 15],
  ['auipc', 'alu', 4],
  ['beq', 'alu', 22],
  ['bge', 'alu', 25],
  ['bgeu', 'alu', 25],
  ['blt', 'alu', 22],
  ['bltu', 'alu', 22],
  ['bne', 'alu', 22],
  ['j', 'alu', 3],
  ['jal', 'alu', 3],
  ['jalr', 'alu', 6],
  ['lui', 'alu', 7],
  ['or', 'alu', 28],
  ['ori', 'alu', 15],
  ['simple', 'alu', 1],
  ['sll', 'alu', 44],
  ['slli', 'alu', 26],
  ['slt', 'alu', 39],
  ['slti', 'alu', 26],
  ['sra', 'alu', 44],
  ['srai', 'alu', 26],
  ['srl', 'alu', 44],
  ['srli', 'alu', 26],
  ['sub', 'alu', 38],
  ['xor', 'alu', 28],
  ['xori', 'alu', 15],
  ['lb', 'load', 20],
  ['lbu', 'load', 20],
  ['lh', 'load', 20],
  ['lhu', 'load', 20],
  ['lw', 'load', 20],
  ['sb', 'store', 24],
  ['sh', 'store', 24],
  ['sw', 'store', 24],
  ['mul', 'muldiv', 38],
  ['mulh', 'muldiv', 36],
  ['mulhsu', 'muldiv', 36],
  ['mulhu', 'muldiv', 36],
  ['div', 'muldiv', 11],
  ['divu', 'muldiv', 11],
  ['rem', 'muldiv', 11],
  ['remu', 'muldiv', 11],
  ['amoadd_w', 'amo', 6],
  ['amoand_w', 'amo', 6],
  ['amomax_w', 'amo', 6],
  ['amomaxu_w', 'amo', 6],
  ['amomin_w', 'amo', 6],
  ['amominu_w', 'amo', 6],
  ['amoor_w', 'amo', 6],
  ['amoswap_w', 'amo', 6],
  ['amoxor_w', 'amo', 6],
];

/** Real sim times of PicoRV32 ISA tests (calibration rows p11-*, p22-* with default caches). */
const PICO_MEASURED: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  addi: { '1x1': 3_279_750, '2x2': 5_179_750 },
  lw: { '2x2': 5_317_750 },
  sw: { '2x2': 9_509_750 },
  mul: { '2x2': 7_330_250 },
  amoadd_w: { '1x1': 2_255_750 },
};

/** Trap addresses read off real sim.logs (`250: good_trap ...`). */
const PICO_TRAPS: Readonly<Record<string, { goodTrap: number; badTrap: number }>> = {
  addi: { goodTrap: 0x4000_0378, badTrap: 0x4000_0348 },
  amoadd_w: { goodTrap: 0x4000_0154, badTrap: 0x4000_0124 },
};

/** The L1.5 drift of sw.S (2x2, L1.5 4 KB: +2 cycles) is the only ISA-test cache effect measured. */
const PICO_MEMORY: Readonly<Record<string, MemoryUse>> = {
  sw: { l15Lines: 0, l2Lines: 0, passes: 1, l15DriftBelow: 2, l15DriftAbove: 0, l15WideWaySaving: 0 },
};

function picoTests(): Program[] {
  return PICO_TESTS.map(([base, testClass, tests]) => ({
    name: `${base}.S`,
    isa: 'rv32',
    kind: testClass === 'amo' ? 'amo' : 'isa',
    dir: PICO_DIAGS,
    testClass,
    tests,
    ...(PICO_MEASURED[base] ? { measured: PICO_MEASURED[base] } : {}),
    ...(PICO_MEMORY[base] ? { memory: PICO_MEMORY[base] } : {}),
    ...(PICO_TRAPS[base] ?? traps(PICO_BASE, tests)),
  }));
}

/**
 * Ariane's precompiled riscv-tests (p env). Those without a PicoRV32 namesake take the case count of
 * their nearest one (addiw ← addi, ld ← lw, ...).
 */
const ARIANE_TESTS: ReadonlyArray<readonly [string, TestClass, number]> = [
  ...PICO_TESTS.filter(([, c]) => c !== 'amo').map(
    ([n, c, t]) => [`rv64u${c === 'muldiv' ? 'm' : 'i'}-p-${n}`, c, t] as const,
  ),
  ...(
    [
      ['addiw', 26],
      ['addw', 39],
      ['slliw', 26],
      ['sllw', 44],
      ['sraiw', 26],
      ['sraw', 44],
      ['srliw', 26],
      ['srlw', 44],
      ['subw', 38],
      ['sltiu', 26],
      ['sltu', 39],
      ['fence_i', 1],
    ] as const
  ).map(([n, t]) => [`rv64ui-p-${n}`, 'alu', t] as const),
  ...(
    [
      ['ld', 20],
      ['lwu', 20],
    ] as const
  ).map(([n, t]) => [`rv64ui-p-${n}`, 'load', t] as const),
  ['rv64ui-p-sd', 'store', 24],
  ...['mulw', 'divw', 'divuw', 'remw', 'remuw'].map((n) => [`rv64um-p-${n}`, 'muldiv', 11] as const),
  ...['amoadd', 'amoand', 'amomax', 'amomaxu', 'amomin', 'amominu', 'amoor', 'amoswap', 'amoxor'].flatMap((n) => [
    [`rv64ua-p-${n}_w`, 'amo', 6] as const,
    [`rv64ua-p-${n}_d`, 'amo', 6] as const,
  ]),
  ['rv64ua-p-lrsc', 'amo', 6],
];

/** Calibration rows a11-* (Ariane 1x1, default caches). */
const ARIANE_MEASURED: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  'rv64ui-p-addi': { '1x1': 17_863_750 },
  'rv64ui-p-add': { '1x1': 18_562_250 },
};

function arianeTests(): Program[] {
  return ARIANE_TESTS.map(([name, testClass, tests]) => ({
    name,
    isa: 'rv64',
    kind: 'riscv_test',
    dir: RISCV_TESTS,
    testClass,
    tests,
    ...(ARIANE_MEASURED[name] ? { measured: ARIANE_MEASURED[name] } : {}),
    ...(name === 'rv64ui-p-addi' ? { goodTrap: 0x8000_03a4, badTrap: 0x8000_0390 } : traps(ARIANE_BASE, tests)),
  }));
}

/**
 * The calibration walks (mace/openpiton/offline/calibration/diags): 16 KB at a 16-byte stride and
 * 160 KB at a 64-byte stride, each walked twice. Their cache drifts are the measured ones.
 */
const MEMWALKS: Program[] = [
  {
    name: 'memwalk16k.S',
    isa: 'rv32',
    kind: 'memwalk',
    measured: { '1x1': 65_329_250, '2x2': 71_608_750 },
    memory: { l15Lines: 1024, l2Lines: 256, passes: 2, l15DriftBelow: 8, l15DriftAbove: 0, l15WideWaySaving: 7320 },
    goodTrap: 0x4000_0108,
    badTrap: 0x4000_00f0,
  },
  {
    name: 'memwalk160k.S',
    isa: 'rv32',
    kind: 'memwalk',
    measured: { '2x2': 239_148_750 },
    memory: { l15Lines: 2560, l2Lines: 2560, passes: 2, l15DriftBelow: 80, l15DriftAbove: 40, l15WideWaySaving: 0 },
    goodTrap: 0x4000_0108,
    badTrap: 0x4000_00f0,
  },
];

/**
 * The project's gate programs (workloads/, found through -asm_diag_root). Never measured yet: their
 * single-tile cost and per-tile synchronisation cost are estimates to replace with real rows.
 */
function gatePrograms(): Program[] {
  const estimates: ReadonlyArray<readonly [string, number, number]> = [
    ['barrier_atomic', 1800, 240],
    ['producer_consumer', 7000, 400],
    ['scatter_gather', 2000, 200],
  ];
  return estimates.flatMap(([base, cycles, syncPerTile]) =>
    (['rv32', 'rv64'] as const).map((isa) => ({
      name: `${base}_${isa}.S`,
      isa,
      kind: 'gate' as const,
      estimatedWork: cycles,
      syncPerTile,
      ...traps(isa === 'rv32' ? PICO_BASE : ARIANE_BASE, 40),
    })),
  );
}

/**
 * matmul_rv32.S and matmul_rv64.S (workloads/): every hart multiplies its own 2x48 by 48x48 integer
 * matrices. A hart's L1.5 footprint is 624 data lines, 41 code lines (PicoRV32 fetches through the
 * L1.5) and the shared roll-call word; its L2 footprint 156 lines. Its data is walked ten times: the
 * fill, four times per row of C (C's columns are taken four apart, so each use of a B line is a walk
 * of B away from the last) and the check. PicoRV32 times are the real rows p11-matmul and
 * p22-*-matmul; the Ariane version is scaled from them (never run on Ariane).
 */
const MATMUL_2X2: readonly MeasuredDesign[] = [
  { mesh: '2x2', l15: [8192, 4], l2: [65536, 4], time: 288_564_250 },
  { mesh: '2x2', l15: [4096, 4], l2: [65536, 4], time: 329_633_250 },
  { mesh: '2x2', l15: [16384, 4], l2: [65536, 4], time: 266_898_250 },
  { mesh: '2x2', l15: [8192, 8], l2: [65536, 4], time: 289_946_250 },
  { mesh: '2x2', l15: [8192, 4], l2: [32768, 4], time: 288_518_750 },
  { mesh: '2x2', l15: [16384, 4], l2: [32768, 4], time: 266_833_250 },
  { mesh: '2x2', l15: [8192, 4], l2: [131072, 4], time: 288_658_750 },
];

/** Cycles a measured 2x2 design took beyond the default one (negative: it was faster). */
function matmulDelta(l15: readonly [number, number], l2: readonly [number, number] = [65536, 4]): number {
  const [base, other] = [
    [8192, 4, 65536, 4],
    [...l15, ...l2],
  ].map((key) => MATMUL_2X2.find((m) => `${[...m.l15, ...m.l2]}` === `${key}`)!.time);
  return (other! - base!) / TIME_PER_CYCLE;
}

const MATMUL_MEMORY: MemoryUse = {
  l15Lines: 666,
  l2Lines: 156,
  passes: 10,
  l15DriftBelow: matmulDelta([4096, 4]),
  l15DriftAbove: 0,
  l15WideWaySaving: -matmulDelta([8192, 8]),
  l15FitSaving: -matmulDelta([16384, 4]),
  l2SetsOffsets: [
    [7, matmulDelta([8192, 4], [32768, 4])],
    [9, matmulDelta([8192, 4], [131072, 4])],
  ],
  l2SetsOffsetsFit: [[7, matmulDelta([16384, 4], [32768, 4]) - matmulDelta([16384, 4])]],
  perHart: true,
};

const MATMUL: Program[] = [
  {
    name: 'matmul_rv32.S',
    isa: 'rv32',
    kind: 'gate',
    measured: { '1x1': 283_868_750, '2x2': MATMUL_2X2[0]!.time },
    memory: MATMUL_MEMORY,
    goodTrap: 0x4000_029c,
    badTrap: 0x4000_0298,
  },
  {
    name: 'matmul_rv64.S',
    isa: 'rv64',
    kind: 'gate',
    scaledFrom: 'matmul_rv32.S',
    memory: MATMUL_MEMORY,
    ...traps(ARIANE_BASE, 40),
  },
];

/** hello_world.c: the adapter reference's run_pass_sim.log fixture ends at 179911750 (1x1). */
const HELLO: Program = {
  name: 'hello_world.c',
  isa: 'rv64',
  kind: 'hello',
  dir: ARIANE_C_DIAGS,
  measured: { '1x1': 179_911_750 },
  goodTrap: 0x8000_0540,
  badTrap: 0x8000_0542,
  uart: (hart, harts) => [
    ...Array.from({ length: 32 }, (_, i) => `Hello world, I am HART ${hart}! Counting (${i} of 32)...`),
    ...(hart === harts - 1 ? ['Done!'] : []),
  ],
};

/** OpenSPARC T1 diags: under Verilator 5.006 the T1 never gets through them (row s11-*). */
const SPARC: Program[] = ['princeton-test-test.s', 'uart-hello-world.s', 'exu_add.s', 'tso_mutex1.s'].map((name) => ({
  name,
  isa: 'sparc',
  kind: 'sparc',
  dir: SPARC_DIAGS,
  estimatedWork: 40_000,
  goodTrap: 0x82_0000,
  badTrap: 0x82_0020,
}));

export const CATALOG: readonly Program[] = [
  ...picoTests(),
  ...arianeTests(),
  ...MEMWALKS,
  ...gatePrograms(),
  ...MATMUL,
  HELLO,
  ...SPARC,
];

const BY_NAME = new Map(CATALOG.map((p) => [p.name, p]));

/** The catalog entry for a diag name as sims was given it (`rv64ui-p-addi.S` finds `rv64ui-p-addi`). */
export function findProgram(name: string): Program | undefined {
  return BY_NAME.get(name);
}

/** Instructions in one TEST_ case of the riscv-tests macros, to size a program by its lines. */
const INSTRUCTIONS_PER_TEST = 8;

/**
 * A program sims found that the catalog does not know (a user's own diag): modelled as a
 * single-hart ALU test with as many cases as its instruction-like lines fill.
 */
export function unknownProgram(name: string, source: string, isa: Isa): Program {
  const instructions = source.split('\n').filter((line) => /^\s+[a-z][a-z0-9.]*(\s|$)/.test(line)).length;
  const tests = Math.max(1, Math.ceil(instructions / INSTRUCTIONS_PER_TEST));
  return {
    name,
    isa,
    kind: isa === 'sparc' ? 'sparc' : 'isa',
    testClass: 'alu',
    tests,
    ...traps(isa === 'rv64' ? ARIANE_BASE : PICO_BASE, tests),
  };
}
