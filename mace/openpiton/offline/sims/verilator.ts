/**
 * What the model's Verilator prints for a design: its warning flood (counts per tag as the real
 * builds printed them), option errors, and the elaboration errors of the configurations OpenPiton
 * cannot build.
 */
import type { Design } from '../model/design.ts';
import { tileCount } from '../model/design.ts';
import type { SourceError } from '../model/source.ts';
import { verilatorError } from './formats.ts';

/** Warning counts by tag of the real 1x1 builds (the build excerpts' summaries). */
const WARNING_COUNTS: Record<'pico' | 'ariane' | 'sparc', ReadonlyArray<readonly [string, number]>> = {
  pico: [
    ['WIDTH', 550],
    ['CASEINCOMPLETE', 50],
    ['PINMISSING', 42],
    ['IMPLICIT', 14],
    ['LATCH', 5],
    ['UNOPTFLAT', 3],
    ['UNSIGNED', 2],
    ['SELRANGE', 2],
    ['STMTDLY', 1],
    ['MULTIDRIVEN', 1],
    ['LITENDIAN', 1],
  ],
  ariane: [
    ['WIDTH', 892],
    ['LITENDIAN', 95],
    ['CASEINCOMPLETE', 58],
    ['UNOPTFLAT', 37],
    ['LATCH', 34],
    ['WIDTHCONCAT', 28],
    ['PINMISSING', 12],
    ['UNSIGNED', 5],
    ['SELRANGE', 4],
    ['SYMRSVDWORD', 3],
    ['IMPLICIT', 2],
    ['STMTDLY', 1],
    ['MULTIDRIVEN', 1],
    ['CMPCONST', 1],
  ],
  sparc: [
    ['WIDTH', 1607],
    ['LATCH', 151],
    ['CASEINCOMPLETE', 63],
    ['UNOPTFLAT', 57],
    ['INITIALDLY', 36],
    ['IMPLICIT', 14],
    ['PINMISSING', 8],
    ['CASEOVERLAP', 3],
    ['UNSIGNED', 2],
    ['STMTDLY', 2],
    ['SELRANGE', 2],
    ['MULTIDRIVEN', 1],
    ['LITENDIAN', 1],
    ['CASEX', 1],
  ],
};

const MESSAGES: Record<string, (sig: string, n: number) => string> = {
  WIDTH: (sig, n) =>
    `Operator ASSIGN expects ${8 + (n % 56)} bits on the Assign RHS, but Assign RHS's VARREF '${sig}' generates ${4 + (n % 28)} bits.`,
  CASEINCOMPLETE: (_, n) => `Case values incompletely covered (example pattern 0x${(n % 16).toString(16)})`,
  PINMISSING: (sig) => `Cell has missing pin: '${sig}'`,
  IMPLICIT: (sig) => `Signal definition not found, creating implicitly: '${sig}'`,
  LATCH: (sig) => `Latch inferred for signal '${sig}' (not all control paths of combinational always assign a value)`,
  UNOPTFLAT: (sig) => `Signal unoptimizable: Circular combinational logic: '${sig}'`,
  UNSIGNED: () => `Comparison is constant due to unsigned arithmetic`,
  SELRANGE: (_, n) => `Selection index out of range: ${3 + (n % 4)}:0 outside 2:0`,
  STMTDLY: () => `Ignoring delay on this statement due to --no-timing`,
  MULTIDRIVEN: (sig) => `Signal has multiple driving blocks with different clocking: '${sig}'`,
  LITENDIAN: () => `Little bit endian vector: left < right of bit range: [0:7]`,
  WIDTHCONCAT: () => `Unsized numbers/parameters not allowed in concatenations.`,
  SYMRSVDWORD: (sig) => `Symbol matches C++ common word: '${sig}'`,
  CMPCONST: () => `Comparison is constant due to limited range`,
  INITIALDLY: () => `Non-blocking assignment '<=' in initial/final block`,
  CASEOVERLAP: (_, n) => `Case values overlap (example pattern 0x${(n % 8).toString(16)})`,
  CASEX: () => `Suggest casez (with ?'s) in place of casex (with X's)`,
};

const FILES: Record<'pico' | 'ariane' | 'sparc', readonly string[]> = {
  pico: ['design/chip/tile/pico/rtl/picorv32.v', 'design/chip/tile/rtl/pico_l15_transducer.v'],
  ariane: [
    'design/chip/tile/ariane/core/cache_subsystem/wt_dcache_missunit.sv',
    'design/chip/tile/ariane/core/cache_subsystem/wt_l15_adapter.sv',
    'design/chip/tile/ariane/core/frontend/frontend.sv',
  ],
  sparc: ['design/chip/tile/sparc/lsu/rtl/lsu_qctl1.v', 'design/chip/tile/sparc/ifu/rtl/sparc_ifu_fcl.v'],
};

const COMMON_FILES = [
  'design/chip/tile/l15/rtl/l15_pipeline.tmp.v',
  'design/chip/tile/l2/rtl/l2_pipe1_ctrl.v',
  'design/chip/tile/dynamic_node/dynamic/rtl/dynamic_input_control.v',
  'verif/env/common/fake_mem_ctrl.v',
  'design/chipset/rtl/chipset.v',
];

const SIGNALS = ['data_in', 'valid_s2', 'req_addr', 'fifo_count', 'state_next', 'msg_amo_mask', 'way_sel', 'rd_data'];

/** The warning lines of one build, deterministic for a design. */
export function warnings(design: Design, dvRoot: string): string[] {
  const family = design.core === 'generic' ? 'pico' : design.core;
  const files = [...FILES[family], ...COMMON_FILES];
  const out: string[] = [];
  let n = 0;
  for (const [tag, count] of WARNING_COUNTS[family]) {
    for (let i = 0; i < count; i++, n++) {
      const file = files[(n * 7) % files.length]!;
      const line = 40 + ((n * 2654435761) % 4000);
      const col = 5 + (n % 40);
      out.push(`%Warning-${tag}: ${dvRoot}/${file}:${line}:${col}: ${MESSAGES[tag]!(SIGNALS[n % SIGNALS.length]!, n)}`);
    }
  }
  return [...out, ...geometryWarnings(design, dvRoot)];
}

/** Warnings the real builds added for odd cache geometry (the calibration logs' diffs). */
function geometryWarnings(design: Design, dvRoot: string): string[] {
  const { l1d, l15 } = design.caches;
  const l15Rtl = `${dvRoot}/design/chip/tile/l15/rtl`;
  const out: string[] = [];
  if (l1d[0] & (l1d[0] - 1))
    for (const [line, col] of [
      [887, 14],
      [887, 73],
      [90, 28],
    ])
      out.push(
        `%Warning-WIDTH: ${l15Rtl}/rf_l15_wmt.tmp.v:${line}:${col}: Bit extraction of array[191:0] requires 8 bit index, not 7 bits.`,
      );
  if (l15[1] < 4)
    out.push(
      `%Warning-CASEOVERLAP: ${l15Rtl}/l15_pipeline.tmp.v:2722:13: Case values overlap (example pattern 0x0)`,
      `%Warning-SELRANGE: ${l15Rtl}/l15_pipeline.tmp.v:3840:29: Selection index out of range: 3:0 outside 2:0`,
    );
  if (l15[1] > 4)
    out.push(
      `%Warning-WIDTH: ${l15Rtl}/l15.v:385:6: Input port connection 'DIN' expects 264 bits on the pin connection, but pin connection's VARREF 'l15_dtag_write_data_s1' generates 132 bits.`,
    );
  if (design.core === 'ariane' && (l1d[1] > l15[1] || design.caches.l1i[1] > l15[1]))
    out.push(
      `%Warning-WIDTH: ${dvRoot}/design/chip/tile/ariane/core/cache_subsystem/wt_l15_adapter.sv:124:45: Operator ASSIGNW expects 2 bits on the Assign RHS, but Assign RHS's COND generates 3 bits.`,
      `%Warning-WIDTH: ${l15Rtl}/l15_pipeline.tmp.v:4061:29: Operator EQ expects 32 or 3 bits on the LHS, but LHS's VARREF 'l1_replacement_way_s3' generates 2 bits.`,
    );
  return out;
}

/** Verilator 5.006's options that the model accepts; anything else is `%Error: Invalid option`. */
const KNOWN_OPTIONS =
  /^(--no-timing|--timing|--coverage(-line|-toggle|-user)?|--trace(-fst|-structs|-depth)?|--threads|--x-assign|--x-initial|--unroll-count|--error-limit|--top-module|--prof-cfuncs|--stats|-O[0-3s]|-W.+|-D.+|-I.+|-U.+|\+define\+.+|\+incdir\+.+|-CFLAGS|-LDFLAGS|-j|--assert|--savable|--bbox-unsup|-f|-F)(=.*|\s.*)?$/;

export function invalidOption(buildArgs: readonly string[]): string | undefined {
  for (const arg of buildArgs)
    for (const word of arg.split(/\s+/).filter((w) => w.startsWith('-') || w.startsWith('+')))
      if (!KNOWN_OPTIONS.test(word)) return word;
  return undefined;
}

/** Errors of a design OpenPiton cannot build, in the order Verilator reports them. */
export function elaborationErrors(design: Design, dvRoot: string, sourceErrors: readonly SourceError[]): string[] {
  const out = sourceErrors.flatMap((e) => verilatorError(e, e.tag));
  if (design.defines.includes('PITON_FPGA_SYNTH'))
    out.push(
      ...verilatorError(
        {
          file: `${dvRoot}/verif/env/manycore/manycore_top.tmp.v`,
          line: 361,
          col: 6,
          message: "Pin not found: 'async_mux'",
          text: '    .async_mux(async_mux),',
          width: 9,
        },
        'PINNOTFOUND',
      ),
    );
  if (design.network === 'xbar_config' && design.yTiles >= 2) out.push(...crossbarErrors(design, dvRoot));
  return out;
}

/**
 * The crossbar has one port per column: every tile beyond the first row connects again to a port
 * the first row already took (row p12-xbar: 6 pins × 3 NoCs for the second row of one column).
 */
function crossbarErrors(design: Design, dvRoot: string): string[] {
  const file = `${dvRoot}/design/chip/rtl/chip.tmp.v`;
  const pins = ['dataIn', 'validIn', 'yummyIn', 'dataOut', 'validOut', 'yummyOut'];
  const out: string[] = [];
  for (let noc = 1; noc <= 3; noc++) {
    const block = 925 + (noc - 1) * 31;
    for (let tile = design.xTiles; tile < tileCount(design); tile++) {
      const [x, y] = [tile % design.xTiles, Math.floor(tile / design.xTiles)];
      pins.forEach((pin, i) => {
        const dir = i < 3 ? `tile_${y}_${x}_out_noc${noc}` : `xbar_${x}_out_noc${noc}`;
        const signal = `${dir}_${pin.replace(/In|Out/, '').toLowerCase()}`;
        const line = block + 7 * y + i;
        out.push(
          `%Error: ${file}:${line}:6: Duplicate pin connection: '${pin}_${x}'`,
          `  ${line} |     .${pin}_${x}(${signal}),`,
          `      |      ^${'~'.repeat(pin.length + String(x).length)}`,
          `        ${file}:${block + i}:${i === 0 ? 10 : 6}: ... Location of original pin connection`,
        );
      });
    }
  }
  return out;
}

/** Verilator's closing lines: it stops after 50 errors. */
export function exitLine(errorCount: number): string {
  return errorCount >= 50
    ? '%Error: Exiting due to too many errors encountered; --error-limit=50'
    : `%Error: Exiting due to ${errorCount} error(s)`;
}

/** The NEEDTIMINGOPT error Verilator 5 gives OpenPiton's testbench without --timing or --no-timing. */
export function timingError(dvRoot: string): string[] {
  return [
    `%Error-NEEDTIMINGOPT: ${dvRoot}/verif/env/manycore/pc_cmp.tmp.v:664:5: Use --timing or --no-timing to specify how delays should be handled`,
    '                                                                                         : ... In instance cmp_top.monitor.pc_cmp',
    '  664 |     #20 ',
    '      |     ^',
  ];
}
