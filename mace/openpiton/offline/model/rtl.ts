/**
 * The RTL files an offline checkout carries for the sources that faults and RTL edits touch. They are
 * written for the model, not copied from OpenPiton: each holds the real file's interface and the
 * exact lines the project's source faults change, so a fault applies, breaks the build or the run as
 * the real one does, and is undone by restoring the line. The offline sims never compiles them; it
 * reads them (see source.ts). `checked` lists the lines whose function the model knows: changing one
 * into something that still compiles gives that line's run defect.
 */
import type { ModelCore, RunDefect } from './design.ts';

export interface ModelSource {
  /** Path relative to the checkout root. */
  readonly path: string;
  /** The module the file defines (named when the file is missing). */
  readonly module: string;
  /** The cores whose builds read it. */
  readonly cores: readonly ModelCore[];
  readonly text: string;
  readonly checked: ReadonlyArray<{ readonly line: string; readonly effect: RunDefect }>;
}

const lines = (...rows: string[]): string => rows.join('\n') + '\n';

const MODEL_HEADER = (what: string) => [
  `// ${what}`,
  '//',
  '// Offline MACE-TS checkout: this file stands in for the OpenPiton source of the same path. The',
  "// offline model's sims does not compile it; it reads it at build time to see whether it changed.",
  '// Edits that keep every declared name resolvable and leave the checked lines alone build and pass.',
  '',
];

export const PICORV32 = lines(
  ...MODEL_HEADER('PicoRV32 core as OpenPiton instantiates it in the pico tile.'),
  '`timescale 1 ns / 1 ps',
  '',
  'module picorv32 #(',
  "    parameter [31:0] PROGADDR_RESET = 32'h4000_0000,",
  "    parameter [31:0] STACKADDR = 32'hffff_ffff,",
  '    parameter [0:0] ENABLE_MUL = 1,',
  '    parameter [0:0] ENABLE_DIV = 1',
  ') (',
  '    input clk,',
  '    input resetn,',
  '    output reg trap,',
  '',
  '    output reg        mem_valid,',
  '    output reg        mem_instr,',
  '    input             mem_ready,',
  '    output reg [31:0] mem_addr,',
  '    output reg [31:0] mem_wdata,',
  '    output reg [ 3:0] mem_wstrb,',
  '    input      [31:0] mem_rdata,',
  '    output reg [ 4:0] mem_amo_op,',
  '',
  '    output        pcpi_valid,',
  '    output [31:0] pcpi_insn,',
  '    output [31:0] pcpi_rs1,',
  '    output [31:0] pcpi_rs2,',
  '    input         pcpi_wr,',
  '    input  [31:0] pcpi_rd,',
  '    input         pcpi_wait,',
  '    input         pcpi_ready,',
  '',
  '    input pico_int',
  ');',
  '    reg [31:0] reg_pc;',
  '    reg [31:0] reg_next_pc;',
  '    reg [31:0] reg_op1;',
  '    reg [31:0] reg_op2;',
  '    reg [31:0] reg_out;',
  '    reg [31:0] alu_add_sub;',
  '    reg [31:0] alu_out;',
  '    reg [31:0] pcpi_insn_q;',
  '    reg        pcpi_valid_q;',
  '    reg        instr_sub;',
  '    reg        launch_next_insn;',
  '    reg        mem_do_rinst;',
  '    reg        mem_do_rdata;',
  '    reg        mem_do_wdata;',
  '    reg        mem_la_use_prefetched_high_word;',
  '    reg        booted;',
  '    reg        sleeping;',
  '    wire       mem_xfer;',
  '',
  '    // A transfer completes when memory answers, or when the prefetched high half serves a fetch.',
  '    assign mem_xfer = (mem_valid && mem_ready) || (mem_la_use_prefetched_high_word && mem_do_rinst);',
  '',
  '    // The coprocessor interface sees the decoded operands.',
  '    assign pcpi_valid = pcpi_valid_q;',
  '    assign pcpi_insn = pcpi_insn_q;',
  '    assign pcpi_rs1 = reg_op1;',
  '    assign pcpi_rs2 = reg_op2;',
  '',
  '    always @* begin',
  '        alu_add_sub = instr_sub ? reg_op1 - reg_op2 : reg_op1 + reg_op2;',
  '        alu_out = alu_add_sub;',
  '    end',
  '',
  "    // A store to 32'hffffffff puts the core to sleep until pico_int. After reset the core wakes once",
  '    // on its own (the booted register), without waiting for an interrupt that never comes.',
  '    always @(posedge clk) begin',
  '        if (!resetn) begin',
  "            booted <= 1'b0;",
  "            sleeping <= 1'b1;",
  '        end else if (pico_int || !booted) begin',
  "            booted <= 1'b1;",
  "            sleeping <= 1'b0;",
  "        end else if (mem_valid && mem_addr == 32'hffff_ffff && |mem_wstrb) begin",
  "            sleeping <= 1'b1;",
  '        end',
  '    end',
  '',
  '    always @(posedge clk) begin',
  '        if (!resetn) begin',
  '            reg_pc <= PROGADDR_RESET;',
  '            reg_next_pc <= PROGADDR_RESET;',
  "            launch_next_insn <= 1'b0;",
  "            trap <= 1'b0;",
  '        end else if (!sleeping && mem_xfer) begin',
  '            reg_pc <= reg_next_pc;',
  '            reg_next_pc <= reg_next_pc + 4;',
  "            launch_next_insn <= 1'b1;",
  '            reg_out <= alu_out;',
  '        end else begin',
  "            launch_next_insn <= 1'b0;",
  '        end',
  '    end',
  'endmodule',
);

/** Places `target` on line `lineNo` (1-based) by padding the preamble with a comment block. */
function placeLine(preamble: string[], body: string[], target: string, lineNo: number): string {
  const index = body.indexOf(target);
  if (index < 0) throw new Error(`model source lacks its target line: ${target.trim()}`);
  const pad = lineNo - 1 - preamble.length - index;
  if (pad < 2) throw new Error(`model source preamble too long to put its target on line ${lineNo}`);
  const filler = ['/*', ...Array.from({ length: pad - 2 }, () => ' *'), ' */'];
  return lines(...preamble, ...filler, ...body);
}

const L15_INVAL_LINE = '        icache_rtrn_o.inv.vld = rtrn_fifo_data.l15_inval_icache_inval;';

/** The Ariane fault's line sits on line 255, where the real build stopped (harness reference §1.5). */
export const WT_L15_ADAPTER = placeLine(
  MODEL_HEADER('Ariane write-through cache subsystem: the adapter between the L1 caches and the L1.5.'),
  [
    'module wt_l15_adapter #(',
    '    parameter int unsigned L15_WAY_WIDTH = 2',
    ') (',
    '    input  logic              clk_i,',
    '    input  logic              rst_ni,',
    '    input  icache_req_t       icache_data_i,',
    '    output icache_rtrn_t      icache_rtrn_o,',
    '    input  dcache_req_t       dcache_data_i,',
    '    output dcache_rtrn_t      dcache_rtrn_o,',
    '    output l15_req_t          l15_req_o,',
    '    input  l15_rtrn_t         l15_rtrn_i',
    ');',
    '    l15_rtrn_t rtrn_fifo_data;',
    '    logic      rtrn_fifo_empty;',
    '',
    '    // Without Verilator the L1 ways must fit the L1.5 way field; Verilator compiles the check out.',
    '`ifndef VERILATOR',
    '    initial begin',
    '        assert (L15_WAY_WIDTH >= $clog2(4)) else $fatal(1, "L1 ways exceed the L1.5 way field");',
    '    end',
    '`endif',
    '',
    '    always_comb begin : p_rtrn_logic',
    '        icache_rtrn_o.rtype = rtrn_fifo_data.l15_returntype;',
    '        icache_rtrn_o.data = rtrn_fifo_data.l15_data_0;',
    L15_INVAL_LINE,
    '        icache_rtrn_o.inv.all = rtrn_fifo_data.l15_inval_icache_all_way;',
    '        icache_rtrn_o.inv.idx = rtrn_fifo_data.l15_inval_address_15_4;',
    '        dcache_rtrn_o.rtype = rtrn_fifo_data.l15_returntype;',
    '        dcache_rtrn_o.data = rtrn_fifo_data.l15_data_0;',
    '        dcache_rtrn_o.inv.vld = rtrn_fifo_data.l15_inval_dcache_inval;',
    '        dcache_rtrn_o.inv.all = rtrn_fifo_data.l15_inval_dcache_all_way;',
    '    end',
    '',
    '    always_ff @(posedge clk_i or negedge rst_ni) begin : p_fifo',
    '        if (!rst_ni) begin',
    "            rtrn_fifo_empty <= 1'b1;",
    '        end else begin',
    '            rtrn_fifo_data <= l15_rtrn_i;',
    "            rtrn_fifo_empty <= 1'b0;",
    '        end',
    '    end',
    'endmodule',
  ],
  L15_INVAL_LINE,
  255,
);

export const WT_DCACHE_CTRL = lines(
  ...MODEL_HEADER('Ariane write-through data cache: the read controller of one port.'),
  'module wt_dcache_ctrl #(',
  '    parameter int unsigned TAG_WIDTH = 44,',
  '    parameter int unsigned IDX_WIDTH = 12,',
  '    parameter int unsigned OFF_WIDTH = 4',
  ') (',
  '    input  logic                          clk_i,',
  '    input  logic                          rst_ni,',
  '    input  logic [TAG_WIDTH-1:0]          req_tag_i,',
  '    input  logic [IDX_WIDTH-1:0]          req_idx_i,',
  '    input  logic [OFF_WIDTH-1:0]          req_off_i,',
  '    input  logic                          req_valid_i,',
  '    output logic [TAG_WIDTH+IDX_WIDTH+OFF_WIDTH-1:0] miss_paddr_o',
  ');',
  '    logic [TAG_WIDTH-1:0] address_tag_q;',
  '    logic [IDX_WIDTH-1:0] address_idx_q;',
  '    logic [OFF_WIDTH-1:0] address_off_q;',
  '',
  '    // A miss asks the L1.5 for the whole physical address of the request it holds.',
  '    assign miss_paddr_o = {address_tag_q, address_idx_q, address_off_q};',
  '',
  '    always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs',
  '        if (!rst_ni) begin',
  "            address_tag_q <= '0;",
  "            address_idx_q <= '0;",
  "            address_off_q <= '0;",
  '        end else if (req_valid_i) begin',
  '            address_tag_q <= req_tag_i;',
  '            address_idx_q <= req_idx_i;',
  '            address_off_q <= req_off_i;',
  '        end',
  '    end',
  'endmodule',
);

export const MODEL_SOURCES: readonly ModelSource[] = [
  {
    path: 'piton/design/chip/tile/pico/rtl/picorv32.v',
    module: 'picorv32',
    cores: ['pico'],
    text: PICORV32,
    checked: [
      {
        line: 'assign mem_xfer = (mem_valid && mem_ready) || (mem_la_use_prefetched_high_word && mem_do_rinst);',
        effect: 'hang',
      },
      { line: 'alu_add_sub = instr_sub ? reg_op1 - reg_op2 : reg_op1 + reg_op2;', effect: 'bad_trap' },
      { line: 'end else if (pico_int || !booted) begin', effect: 'hang' },
    ],
  },
  {
    path: 'piton/design/chip/tile/ariane/core/cache_subsystem/wt_l15_adapter.sv',
    module: 'wt_l15_adapter',
    cores: ['ariane'],
    text: WT_L15_ADAPTER,
    checked: [{ line: L15_INVAL_LINE.trim(), effect: 'bad_trap' }],
  },
  {
    path: 'piton/design/chip/tile/ariane/core/cache_subsystem/wt_dcache_ctrl.sv',
    module: 'wt_dcache_ctrl',
    cores: ['ariane'],
    text: WT_DCACHE_CTRL,
    checked: [{ line: 'assign miss_paddr_o = {address_tag_q, address_idx_q, address_off_q};', effect: 'bad_trap' }],
  },
];
