/**
 * The files of an offline checkout, apart from the bundled sims and the per-checkout settings: the
 * environment script, the tools on PATH, the diags, and the design, verification and tool text the
 * plan check and the source faults read. Every file here is written for the model; none is copied
 * from OpenPiton.
 */
import { CATALOG, type Program } from './model/catalog.ts';
import { VERILATOR_VERSION_TEXT } from './model/constants.ts';
import { MODEL_SOURCES } from './model/rtl.ts';
import { GENERIC_TILE_DIR } from '../geometry.ts';
import { PC_CMP_PATH } from './model/source.ts';
import { buildElf } from './sims/elf.ts';
import { SETTINGS_FILE } from './sims/runtime.ts';
import { defineInventory } from './defines.ts';
import { unitTestFiles } from './unit-template.ts';

export interface CheckoutFile {
  readonly path: string;
  readonly content: string | Buffer;
  readonly executable?: boolean;
}

/** Where the bundled model sims and the files beside it live (on PATH after the prologue). */
export const TOOLS_BIN = 'piton/tools/bin';
export const BUNDLE_FILE = 'mace_offline_sims.cjs';
/** The node binary the launchers use, recorded at init (git-ignored: it is this machine's). */
export const NODE_FILE = 'mace_offline_node';

const text = (...rows: string[]): string => rows.join('\n') + '\n';

/** How the launchers start the bundle: the node that created the checkout, else the one on PATH. */
const launcher = (extra: string) =>
  text(
    '#!/bin/sh',
    '# Part of an offline MACE-TS checkout: a model of OpenPiton (see MACE_OFFLINE.md at its root).',
    'here=${0%/*}',
    'node=node',
    `[ -r "$here/${NODE_FILE}" ] && read -r node < "$here/${NODE_FILE}"`,
    `exec "$node" "$here/${BUNDLE_FILE}"${extra} "$@"`,
  );

const PITON_SETTINGS = text(
  '# OpenPiton environment of an offline MACE-TS checkout: a model of OpenPiton (see MACE_OFFLINE.md).',
  '# As with OpenPiton, PITON_ROOT must be set before this file is sourced.',
  'export DV_ROOT=$PITON_ROOT/piton',
  'export MODEL_DIR=$PITON_ROOT/build',
  'export TRE_ENTRY=/',
  'export TRE_LOG=nobody',
  'export TRE_SEARCH="$DV_ROOT/tools/env/tools.iver"',
  'export ENVDIR=$DV_ROOT/tools/env',
  'export PERL_MODULE_BASE=$DV_ROOT/tools/perlmod',
  'export PERL_CMD="/usr/bin/perl"',
  '# The model sims, verilator and verilator_coverage come first on PATH, as OpenPiton puts its tools.',
  'export PATH="$DV_ROOT/tools/bin:/usr/bin:$PATH"',
  'export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$DV_ROOT/tools/src/goldfinger/lib',
);

const VERILATOR = text(
  '#!/bin/sh',
  '# Verilator of an offline MACE-TS checkout: it reports the calibrated version; builds go through sims.',
  'case "$1" in',
  `  --version|-V) echo "${VERILATOR_VERSION_TEXT}" ;;`,
  '  *) echo "%Error: this offline checkout has no Verilator of its own; build with sims -vlt_build" >&2; exit 1 ;;',
  'esac',
);

const GITIGNORE = text(
  '# Models and runs the offline sims builds, as OpenPiton keeps them out of its repository.',
  '/build/*',
  '!/build/.gitkeep',
  '# Per-machine settings of the offline model.',
  `/${TOOLS_BIN}/${SETTINGS_FILE}`,
  `/${TOOLS_BIN}/${NODE_FILE}`,
  '*.tmp.v',
);

function readme(version: string): string {
  return text(
    '# Offline OpenPiton checkout (a model, not OpenPiton)',
    '',
    `Created by \`mace offline init\`; model version ${version}.`,
    '',
    'This directory is laid out like an OpenPiton checkout, and its `sims` (piton/tools/bin) accepts',
    "OpenPiton's command lines and leaves OpenPiton's files, so MACE-TS drives it exactly as it drives a",
    'real checkout. Behind it is a calibrated model of what OpenPiton and Verilator 5.006 did on real',
    'runs, not a simulation: every verdict and time it reports comes from that model. Results obtained',
    'here describe the model and must never be reported as hardware or RTL simulation results.',
    '',
    "The rules, their evidence and what the model does not capture are in MACE-TS's",
    'mace/openpiton/offline/README.md. Speed, flake rate and seed are in',
    `${TOOLS_BIN}/${SETTINGS_FILE} (or MACE_OFFLINE_SPEED, MACE_OFFLINE_FLAKE_RATE, MACE_OFFLINE_SEED).`,
  );
}

const SIMS_CONFIG = text(
  '// sims configuration of an offline checkout. The model sims keeps these defaults itself;',
  '// this file shows them where OpenPiton keeps its own.',
  '<manycore>',
  '    -model=manycore',
  '    -toplevel=cmp_top',
  '    -config_rtl=NO_SCAN',
  '    -config_l1i_size=16384',
  '    -config_l1i_associativity=4',
  '    -config_l1d_size=8192',
  '    -config_l1d_associativity=4',
  '    -config_l15_size=8192',
  '    -config_l15_associativity=4',
  '    -config_l2_size=65536',
  '    -config_l2_associativity=4',
  '    -vlt_build_args=-DSYNC_MUX',
  '    -rtl_timeout=50000',
  '    -asm_diag_root=$DV_ROOT/verif/diag',
  '    -post_process_cmd="regreport -1 > status.log"',
  '    -post_process_cmd="perf > perf.log"',
  '</manycore>',
);

/** The testbench driver with the coverage hooks (patch fix 5) in place. */
const MY_TOP = text(
  '// Verilator testbench driver of an offline checkout (the model sims does not compile it).',
  '#include "verilated.h"',
  '#include "verilated_vcd_c.h"',
  '#if VM_COVERAGE',
  '#include "verilated_cov.h"',
  '#endif',
  '#include "Vcmp_top.h"',
  '',
  'int main(int argc, char **argv) {',
  '    Verilated::commandArgs(argc, argv);',
  '    Vcmp_top *top = new Vcmp_top;',
  '    while (!Verilated::gotFinish()) top->eval();',
  '    top->final();',
  '#if VM_COVERAGE',
  '    VerilatedCov::write("coverage.dat");',
  '#endif',
  '    delete top;',
  '    return 0;',
  '}',
);

/**
 * The trap monitor with patch fix 7 in place (PicoRV32's threads are activated by a clocked block,
 * not a latch on pico_int) and OpenPiton's own finish_mask declarations: an integer under Verilator,
 * which the model reads to size the mask register.
 */
const PC_CMP = text(
  '// Trap monitor of an offline checkout. The model sims reads the finish_mask declaration below',
  '// (32 bits under Verilator hold a one-digit-per-tile mask for 8 tiles); the rest documents',
  '// what the real monitor does.',
  'module pc_cmp (input clk, input rst_l);',
  '`ifndef VERILATOR',
  '    reg [31:0]   finish_mask;',
  '`else',
  '    integer      finish_mask;',
  '`endif',
  '    reg [31:0]   active_thread;',
  '    reg [31:0]   good;',
  '',
  '`ifdef RTL_PICO0',
  '    // PicoRV32 threads are active from the first cycle after reset.',
  '    always @(posedge clk) begin',
  '        if (~rst_l) begin',
  "            active_thread[(0*4)]   <= 1'b0;",
  "            active_thread[(0*4)+1] <= 1'b0;",
  "            active_thread[(0*4)+2] <= 1'b0;",
  "            active_thread[(0*4)+3] <= 1'b0;",
  '        end else begin',
  "            active_thread[(0*4)]   <= 1'b1;",
  "            active_thread[(0*4)+1] <= 1'b1;",
  "            active_thread[(0*4)+2] <= 1'b1;",
  "            active_thread[(0*4)+3] <= 1'b1;",
  '        end',
  '    end',
  '`endif // RTL_PICO0',
  '',
  '    // A run passes when every thread of finish_mask has hit its good trap:',
  '    //     if ((good == finish_mask) && (hit_bad == 0)) $display("%0d: Simulation -> PASS (HIT GOOD TRAP)", $time);',
  'endmodule',
);

const MANYCORE_TOP = text(
  '// Top of the manycore testbench of an offline checkout (stand-in).',
  'module manycore_top;',
  '`ifndef PITON_FPGA_SYNTH',
  '    // Under the FPGA define the chip drops its async_mux port, which this testbench still connects.',
  '`endif',
  '    chip chip (',
  '        .async_mux(async_mux)',
  '    );',
  'endmodule',
);

const CHIP = text(
  '// Chip top of an offline checkout (stand-in). With the crossbar interconnect every tile row',
  '// connects to the same per-column crossbar ports, so more than one row duplicates pin connections.',
  'module chip;',
  '`ifdef XBAR_CONFIG',
  '`else',
  '`endif',
  'endmodule',
);

const GENERIC_README = text(
  '# Generic Tile cores',
  '',
  'A core that joins OpenPiton through the Generic Tile lives in its own folder here, laid out from its',
  'core descriptor by MACE-TS:',
  '',
  '    <name>/<name>_wrapper.v   module <name>_wrapper: the tile-facing wrapper (generated as a skeleton)',
  "    <name>/rtl/               the core's own sources",
  '    <name>/Flist.<name>       the wrapper and the sources',
  '',
  'sims builds it with `-generic_core=<name>` in place of the core flag. The tile runs the core only',
  'once the wrapper instantiates one of the modules its rtl/ folder defines. OpenPiton itself has no',
  'Generic Tile: this folder and the flag belong to the offline model.',
);

const FLISTS: Record<string, string[]> = {
  'piton/design/chip/tile/pico/rtl/Flist.pico': ['picorv32.v'],
  'piton/design/chip/tile/ariane/Flist.ariane': [
    'core/cache_subsystem/wt_l15_adapter.sv',
    'core/cache_subsystem/wt_dcache_ctrl.sv',
  ],
};

function flistFiles(): CheckoutFile[] {
  return Object.entries(FLISTS).map(([path, files]) => ({
    path,
    content: text(...files.map((f) => `$DV_ROOT/${path.replace(/^piton\//, '').replace(/[^/]+$/, '')}${f}`)),
  }));
}

/** A diag file sims can find by name; the model runs it from its catalog, not from this text. */
function diagFile(program: Program): CheckoutFile {
  const path = `${program.dir}/${program.name}`;
  if (program.kind === 'riscv_test') {
    const { elf } = buildElf({
      bits: 64,
      machine: 243,
      base: 0x8000_0000,
      symbols: [
        { name: 'fail', address: program.badTrap },
        { name: 'pass', address: program.goodTrap },
      ],
    });
    return { path, content: elf };
  }
  if (program.isa === 'sparc')
    return {
      path,
      content: text(
        `! ${program.name}: OpenSPARC T1 diag of an offline checkout.`,
        '! The offline model runs it by name; under Verilator 5.006 the T1 stalls before its trap.',
        '.text',
        '.global main',
        'main:',
        '    ta T_GOOD_TRAP',
      ),
    };
  if (program.name.endsWith('.c'))
    return {
      path,
      content: text(
        `// ${program.name}: OpenPiton C diag of an offline checkout; the model runs it by name.`,
        '#include <stdio.h>',
        '',
        'int main(int argc, char **argv) {',
        '    for (int i = 0; i < 32; i++) printf("Hello world, I am HART %d! Counting (%d of 32)...\\n", argv[0][0], i);',
        '    return 0;',
        '}',
      ),
    };
  return {
    path,
    content: text(
      `# ${program.name}: PicoRV32 ISA test of an offline checkout. The offline model runs it by name;`,
      `# OpenPiton's own copy holds ${program.tests} test cases of ${program.testClass} instructions.`,
      '#include "riscv_test.h"',
      '#include "test_macros.h"',
      '',
      'RVTEST_RV32U',
      'RVTEST_CODE_BEGIN',
      '  TEST_PASSFAIL',
      'RVTEST_CODE_END',
      '',
      '  .data',
      'RVTEST_DATA_BEGIN',
      '  TEST_DATA',
      'RVTEST_DATA_END',
    ),
  };
}

/** Every file of a fresh checkout except the bundled sims (added by the caller). */
export function checkoutFiles(version: string): CheckoutFile[] {
  return [
    { path: '.gitignore', content: GITIGNORE },
    { path: 'MACE_OFFLINE.md', content: readme(version) },
    { path: 'build/.gitkeep', content: '' },
    { path: 'piton/piton_settings.bash', content: PITON_SETTINGS },
    { path: `${TOOLS_BIN}/sims`, content: launcher(''), executable: true },
    { path: `${TOOLS_BIN}/verilator`, content: VERILATOR, executable: true },
    { path: `${TOOLS_BIN}/verilator_coverage`, content: launcher(' --mace-tool=verilator_coverage'), executable: true },
    { path: `${TOOLS_BIN}/mace_offline_model.json`, content: JSON.stringify({ version }, null, 2) + '\n' },
    { path: 'piton/tools/src/sims/sims.config', content: SIMS_CONFIG },
    { path: 'piton/tools/verilator/my_top.cpp', content: MY_TOP },
    { path: PC_CMP_PATH, content: PC_CMP },
    { path: 'piton/verif/env/manycore/manycore_top.v.pyv', content: MANYCORE_TOP },
    { path: 'piton/design/chip/rtl/chip.v.pyv', content: CHIP },
    { path: 'piton/design/include/define_inventory.txt', content: defineInventory() },
    { path: `${GENERIC_TILE_DIR}/README.md`, content: GENERIC_README },
    ...unitTestFiles(),
    ...MODEL_SOURCES.map((s) => ({ path: s.path, content: s.text })),
    ...flistFiles(),
    ...CATALOG.filter((p) => p.dir).map(diagFile),
  ];
}
