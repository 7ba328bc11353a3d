/** The adapter's Verilog reading: port lists, instantiations and code comparison. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PICORV32 } from '../../mace/openpiton/offline/model/rtl.ts';
import { codeOf, instances, rangeWidth, readModule, sameCode, VerilogReadError } from '../../mace/openpiton/verilog.ts';

const summary = (text: string, name?: string) =>
  readModule(text, name).ports.map((p) => `${p.direction ?? '?'} ${p.name}:${p.width ?? '?'}`);

describe('readModule', () => {
  it('reads an ANSI port list with ranges, reg outputs and parameters', () => {
    const ports = summary(PICORV32, 'picorv32');
    assert.equal(ports.length, 20);
    assert.deepEqual(ports.slice(0, 6), [
      'input clk:1',
      'input resetn:1',
      'output trap:1',
      'output mem_valid:1',
      'output mem_instr:1',
      'input mem_ready:1',
    ]);
    assert.ok(ports.includes('output mem_wstrb:4'));
    assert.ok(ports.includes('input mem_rdata:32'));
    assert.equal(ports.at(-1), 'input pico_int:1');
  });

  it('carries a declaration over the names that continue it, and evaluates parameter widths', () => {
    const text = 'module m #(parameter N = 4) (input [N*2-1:0] a, b, output wire [3:0] c, d);\nendmodule';
    assert.deepEqual(summary(text), ['input a:8', 'input b:8', 'output c:4', 'output d:4']);
  });

  it('takes directions and widths from the body of a non-ANSI module', () => {
    const text = 'module m(a, b, c);\n  parameter W = 8;\n  input [W-1:0] a, b;\n  output c;\nendmodule';
    assert.deepEqual(summary(text), ['input a:8', 'input b:8', 'output c:1']);
  });

  it('lists both branches of a preprocessor condition and leaves user types without a width', () => {
    const text = [
      'module m import pkg::*; (',
      '  input logic clk_i,',
      '`ifdef WITH_IRQ',
      '  input irq_i,',
      '`endif',
      '  output req_t req_o // a struct',
      ');',
      'endmodule',
    ].join('\n');
    assert.deepEqual(summary(text), ['input clk_i:1', 'input irq_i:1', 'output req_o:?']);
  });

  it('names the module it could not find', () => {
    assert.throws(() => readModule('module a; endmodule', 'b'), VerilogReadError);
    assert.throws(() => readModule('// nothing here'), /no module is defined/);
  });

  it('evaluates ranges with known parameters only', () => {
    assert.equal(rangeWidth('[31:0]'), 32);
    assert.equal(rangeWidth('[W-1:0]', new Map([['W', 12]])), 12);
    assert.equal(rangeWidth('[W-1:0]'), null);
    assert.equal(rangeWidth('[$clog2(N):0]', new Map([['N', 8]])), null);
  });
});

describe('instances', () => {
  it('finds instantiations across lines with their named pins and positions', () => {
    const text = [
      'module tb;',
      '    test_source',
      '    #(',
      '        .BIT_WIDTH (8)',
      '    ) src',
      '    (',
      '        .clk (clk),',
      '        .rdy (rst_n)',
      '    );',
      '    foo dut (.*);',
      '    bar u1 (a, b);',
      '    always @(posedge clk) if (x) y <= z;',
      '    `TEST_CHECK("done", done, 0)',
      '    $display("x");',
      'endmodule',
    ].join('\n');
    const found = instances(text);
    assert.deepEqual(
      found.map((i) => [i.module, i.name, i.line, i.col, i.connectsAll]),
      [
        ['test_source', 'src', 2, 5, false],
        ['foo', 'dut', 10, 5, true],
        ['bar', 'u1', 11, 5, true],
      ],
    );
    assert.deepEqual(found[0]!.pins, [
      { name: 'clk', line: 7, col: 10 },
      { name: 'rdy', line: 8, col: 10 },
    ]);
  });

  it('does not see instantiations in comments', () => {
    assert.deepEqual(instances('module w;\n// core u (.a(a));\n/* core v (.b(b)); */\nendmodule'), []);
  });
});

describe('sameCode', () => {
  it('ignores comments and spacing, and nothing else', () => {
    assert.equal(sameCode('// hi\nmodule a; // x\nendmodule\n', 'module   a;\n/* c */ endmodule'), true);
    assert.equal(sameCode('module a;\nendmodule', 'module a;\n  b u ();\nendmodule'), false);
    assert.equal(codeOf('wire a; // b'), 'wire a;');
  });
});
