/**
 * The model's elaboration of hand-written Verilog: a Generic Tile wrapper, or a unit-test
 * environment's testbench. Every module instantiated in the files under check must be defined by a
 * file of the build, and every named pin must be a port of that module; a port left unconnected is a
 * warning. The messages are Verilator's (`Cannot find file containing module`, `%Error-PINNOTFOUND:
 * ... Pin not found`, `%Warning-PINMISSING: ... Cell has missing pin`).
 */
import { definedModules, instances, readModule, stripComments, type ModuleHeader } from '../../verilog.ts';
import type { SourceError } from './source.ts';

export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

export interface Elaboration {
  readonly errors: readonly SourceError[];
  /** PINMISSING warnings, in source order. */
  readonly warnings: readonly SourceError[];
  /** Modules the checked files instantiate that a file of the build defines. */
  readonly instantiated: ReadonlySet<string>;
}

/** Check the instantiations of `checked` against the modules `files` (which include them) define. */
export function elaborate(files: readonly SourceFile[], checked: readonly SourceFile[]): Elaboration {
  const definitions = new Map<string, SourceFile>();
  for (const file of files) for (const name of definedModules(file.text)) definitions.set(name, file);
  const headers = new Map<string, ModuleHeader | null>();
  const header = (name: string): ModuleHeader | null => {
    if (!headers.has(name)) {
      try {
        headers.set(name, readModule(definitions.get(name)!.text, name));
      } catch {
        headers.set(name, null);
      }
    }
    return headers.get(name)!;
  };

  const errors: SourceError[] = [];
  const warnings: SourceError[] = [];
  const instantiated = new Set<string>();
  for (const file of checked) {
    const syntax = balanceErrors(file.path, file.text);
    if (syntax.length) {
      errors.push(...syntax);
      continue;
    }
    const lines = file.text.split('\n');
    const at = (line: number, col: number, width: number, message: string, tag?: string): SourceError => ({
      file: file.path,
      line,
      col,
      message,
      text: lines[line - 1] ?? '',
      width,
      ...(tag ? { tag } : {}),
    });
    for (const inst of instances(file.text)) {
      if (!definitions.has(inst.module)) {
        errors.push(
          at(inst.line, inst.col, inst.module.length, `Cannot find file containing module: '${inst.module}'`),
        );
        continue;
      }
      instantiated.add(inst.module);
      const ports = header(inst.module)?.ports;
      if (!ports || inst.connectsAll) continue;
      const names = new Set(ports.map((p) => p.name));
      for (const pin of inst.pins)
        if (!names.has(pin.name))
          errors.push(at(pin.line, pin.col, pin.name.length, `Pin not found: '${pin.name}'`, 'PINNOTFOUND'));
      const connected = new Set(inst.pins.map((p) => p.name));
      for (const port of ports)
        if (!connected.has(port.name))
          warnings.push(at(inst.line, inst.col, inst.module.length, `Cell has missing pin: '${port.name}'`));
    }
  }
  return { errors, warnings, instantiated };
}

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** The first unbalanced bracket or begin/end, module/endmodule, as Verilator's parser would stop on it. */
export function balanceErrors(path: string, text: string): SourceError[] {
  const code = stripComments(text).split('\n');
  const stack: Array<{ token: string; line: number; col: number }> = [];
  for (let i = 0; i < code.length; i++) {
    for (const m of code[i]!.matchAll(/[()[\]{}]|\b(?:begin|end|module|endmodule)\b/g)) {
      const token = m[0];
      const at = { token, line: i + 1, col: m.index! + 1 };
      if (token in OPENERS || token === 'begin' || token === 'module') {
        stack.push(at);
        continue;
      }
      const open = stack.pop();
      const expected =
        open && (open.token in OPENERS ? OPENERS[open.token] : open.token === 'begin' ? 'end' : 'endmodule');
      if (expected !== token) return [syntaxError(path, text, at.line, at.col, `syntax error, unexpected ${token}`)];
    }
  }
  const open = stack.pop();
  if (open)
    return [
      syntaxError(
        path,
        text,
        code.length,
        1,
        `syntax error, unexpected end of file; '${open.token}' on line ${open.line} is never closed`,
      ),
    ];
  return [];
}

/** Verilator's error for a module (or a file on its command line) no file of the build defines. */
export function missingModule(file: string, module: string): SourceError {
  return { file, line: 1, col: 1, message: `Cannot find file containing module: '${module}'`, text: '', width: 1 };
}

function syntaxError(file: string, text: string, line: number, col: number, message: string): SourceError {
  return { file, line, col, message, text: text.split('\n')[line - 1] ?? '', width: 1 };
}
