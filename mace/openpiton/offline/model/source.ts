/**
 * What a build sees of the checkout's sources: the model RTL files (rtl.ts) compared with the text
 * the checkout was created with, the monitor's finish-mask register, and a Generic Tile core's
 * wrapper. The checks are a small stand-in for Verilator's: a change that leaves a used name
 * undeclared, unbalances brackets or blocks, or instantiates a module nobody defines fails the build
 * with a Verilator-style error naming the file and line; a change that compiles but alters a checked
 * line gives that line's run defect.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelCore, RunDefect } from './design.ts';
import { MODEL_SOURCES, type ModelSource } from './rtl.ts';

/** One Verilator diagnostic: `%Error: <file>:<line>:<col>: <message>` and the source excerpt under it. */
export interface SourceError {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly message: string;
  /** The offending source line, for Verilator's excerpt. */
  readonly text: string;
  readonly width: number;
}

export interface SourceState {
  readonly errors: readonly SourceError[];
  readonly defect?: { readonly effect: RunDefect; readonly file: string; readonly line: number };
  readonly finishMaskBits: number;
  readonly coreInstantiated: boolean;
}

export const PC_CMP_PATH = 'piton/verif/env/manycore/pc_cmp.v.pyv';
export const GENERIC_TILE_DIR = 'piton/design/chip/tile/generic';

/** Where a Generic Tile core's wrapper and its own RTL live in a checkout. */
export const genericCorePaths = (name: string) => ({
  dir: `${GENERIC_TILE_DIR}/${name}`,
  wrapper: `${GENERIC_TILE_DIR}/${name}/${name}_wrapper.v`,
  rtl: `${GENERIC_TILE_DIR}/${name}/rtl`,
});

export function analyseSources(root: string, core: ModelCore, genericCore?: string): SourceState {
  const errors: SourceError[] = [];
  let defect: SourceState['defect'];
  for (const source of MODEL_SOURCES.filter((s) => s.cores.includes(core))) {
    const result = checkModelSource(root, source);
    errors.push(...result.errors);
    defect ??= result.defect;
  }
  let coreInstantiated = true;
  if (core === 'generic') {
    const generic = checkGenericCore(root, genericCore ?? '');
    errors.push(...generic.errors);
    coreInstantiated = generic.instantiated;
  }
  return {
    errors,
    ...(defect ? { defect } : {}),
    finishMaskBits: finishMaskBits(readText(join(root, PC_CMP_PATH)) ?? ''),
    coreInstantiated,
  };
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function checkModelSource(root: string, source: ModelSource): Pick<SourceState, 'errors' | 'defect'> {
  const path = join(root, source.path);
  const text = readText(path);
  if (text === undefined) return { errors: [missingModule(path, source.module)] };
  if (text === source.text) return { errors: [] };
  const errors = [...balanceErrors(path, text), ...nameErrors(path, source.text, text)];
  if (errors.length) return { errors };
  const normalised = squash(stripComments(text));
  for (const { line, effect } of source.checked) {
    if (normalised.includes(squash(line))) continue;
    const at = source.text.split('\n').findIndex((l) => l.includes(line)) + 1;
    return { errors: [], defect: { effect, file: path, line: at } };
  }
  return { errors: [] };
}

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Comments and string literals blanked out, keeping every other character's line and column. */
export function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\\n])*"/g, (m) => m.replace(/[^\n]/g, ' '));
}

const KEYWORDS = new Set(
  (
    'module endmodule input output inout wire reg logic integer parameter localparam genvar generate endgenerate ' +
    'assign always always_ff always_comb always_latch initial begin end if else case casez casex endcase default ' +
    'for while repeat forever posedge negedge or and not function endfunction task endtask return typedef struct ' +
    'packed enum union signed unsigned int unsigned bit byte shortint longint string void automatic static const ' +
    'assert property import export package endpackage interface endinterface modport unique priority timescale ' +
    'define ifdef ifndef else elsif endif include wand wor supply0 supply1 tri'
  ).split(' '),
);

const DECLARATION =
  /\b(?:wire|reg|logic|integer|input|output|inout|genvar|parameter|localparam|int|bit)\b((?:\s+(?:signed|unsigned|unsigned|reg|wire|logic|int))*\s*(?:\[[^\]]*\]\s*)*)([^;()]*)/g;

/** Names a text declares: nets, variables, ports, parameters, instances, labels, types and functions. */
function declaredNames(code: string): Set<string> {
  const names = new Set<string>();
  for (const m of code.matchAll(DECLARATION)) {
    for (const part of m[2]!.split(',')) {
      const name = part
        .replace(/=.*$/s, '')
        .replace(/\[[^\]]*\]/g, '')
        .trim()
        .split(/\s+/)
        .pop();
      if (name && /^[A-Za-z_]\w*$/.test(name)) names.add(name);
    }
  }
  const patterns = [
    /^\s*([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*[;,=]/gm, // typed declaration: l15_rtrn_t rtrn_fifo_data;
    /^\s*(?:input|output)\s+([A-Za-z_]\w*)\s+([A-Za-z_]\w*)/gm, // typed port
    /^\s*([A-Za-z_]\w*)\s*(?:#\s*\([^;]*?\))?\s+([A-Za-z_]\w*)\s*\(/gm, // instance: type name (
    /\bbegin\s*:\s*()([A-Za-z_]\w*)/g,
    /\b(?:module|function|task|typedef[^;]*?)\s+(?:automatic\s+)?()([A-Za-z_]\w*)\s*[#(;]/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) if (m[2]) names.add(m[2]);
  return names;
}

interface Use {
  readonly name: string;
  readonly line: number;
  readonly col: number;
  readonly member: boolean;
}

/** Every identifier used, with where; macros, system tasks, based literals and port names are skipped. */
function uses(code: string): Use[] {
  const out: Use[] = [];
  code.split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/([`$'.]?)\s*\b([A-Za-z_]\w*)\b(\s*\()?/g)) {
      const [, prefix, name, call] = m;
      if (prefix === '`' || prefix === '$' || prefix === "'" || KEYWORDS.has(name!)) continue;
      if (prefix === '.' && call) continue; // named port connection .port(...)
      const col = m.index! + m[0].indexOf(name!) + 1;
      if (/^\d/.test(text.slice(col - 2, col - 1))) continue; // 32'h.. literal tails
      out.push({ name: name!, line: i + 1, col, member: prefix === '.' });
    }
  });
  return out;
}

/**
 * Names the edit uses that nothing declares: new names the original never had, and names whose
 * declaration the edit removed. Names the original uses without declaring (types, packages, struct
 * members) stay allowed.
 */
function nameErrors(path: string, original: string, edited: string): SourceError[] {
  const oldCode = stripComments(original);
  const newCode = stripComments(edited);
  const oldWords = new Set(oldCode.match(/[A-Za-z_]\w*/g) ?? []);
  const oldDeclared = declaredNames(oldCode);
  const newDeclared = declaredNames(newCode);
  const editedLines = edited.split('\n');
  const reported = new Set<string>();
  const errors: SourceError[] = [];
  for (const use of uses(newCode)) {
    if (reported.has(use.name) || newDeclared.has(use.name)) continue;
    const known = use.member ? oldWords.has(use.name) : oldWords.has(use.name) && !oldDeclared.has(use.name);
    if (known) continue;
    reported.add(use.name);
    errors.push({
      file: path,
      line: use.line,
      col: use.col,
      message: use.member
        ? `Member '${use.name}' not found in structure`
        : `Can't find definition of variable: '${use.name}'`,
      text: editedLines[use.line - 1] ?? '',
      width: use.name.length,
    });
  }
  return errors;
}

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** The first unbalanced bracket or begin/end, module/endmodule, as Verilator's parser would stop on it. */
function balanceErrors(path: string, text: string): SourceError[] {
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

/** Verilator's error for a module no file of the build defines. */
function missingModule(file: string, module: string): SourceError {
  return { file, line: 1, col: 1, message: `Cannot find file containing module: '${module}'`, text: '', width: 1 };
}

function syntaxError(file: string, text: string, line: number, col: number, message: string): SourceError {
  return { file, line, col, message, text: text.split('\n')[line - 1] ?? '', width: 1 };
}

/**
 * Bits of the monitor's finish_mask as Verilator builds it: pc_cmp.v.pyv declares it `integer`
 * (32 bits) under VERILATOR unless the checkout widened it. A mask is one hex digit per tile, so 32
 * bits hold 8 tiles.
 */
export function finishMaskBits(pcCmp: string): number {
  const code = stripComments(pcCmp);
  const verilatorBranch = /`ifndef\s+VERILATOR[\s\S]*?`else([\s\S]*?)`endif/.exec(code)?.[1];
  const scope = verilatorBranch && /finish_mask/.test(verilatorBranch) ? verilatorBranch : code;
  const decl = /\b(integer|reg\s*\[\s*(\d+)\s*:\s*0\s*\])\s+finish_mask\b/.exec(scope);
  if (!decl || decl[1] === 'integer') return 32;
  return Number(decl[2]) + 1;
}

/** Module names a directory's Verilog and SystemVerilog files define. */
function modulesUnder(dir: string): Set<string> {
  const names = new Set<string>();
  if (!existsSync(dir)) return names;
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, entry);
    if (!/\.s?v$/.test(entry) || !statSync(path).isFile()) continue;
    for (const m of stripComments(readFileSync(path, 'utf8')).matchAll(/\bmodule\s+([A-Za-z_]\w*)/g)) names.add(m[1]!);
  }
  return names;
}

/**
 * A Generic Tile core's wrapper: it must exist, instantiate only modules that exist, and instantiate
 * one of the core's own modules (defined under its rtl/) for the core to run. The skeleton a core
 * descriptor generates instantiates none, whatever its comments say.
 */
function checkGenericCore(root: string, name: string): { errors: SourceError[]; instantiated: boolean } {
  const paths = genericCorePaths(name);
  const wrapperPath = join(root, paths.wrapper);
  const text = readText(wrapperPath);
  if (text === undefined) return { errors: [missingModule(wrapperPath, `${name}_wrapper`)], instantiated: false };
  const coreModules = modulesUnder(join(root, paths.rtl));
  const wrapperModules = modulesUnder(join(root, paths.dir));
  const errors: SourceError[] = [...balanceErrors(wrapperPath, text)];
  let instantiated = false;
  const code = stripComments(text);
  code.split('\n').forEach((line, i) => {
    const m = /^\s*([A-Za-z_]\w*)\s*(?:#\s*\(.*\))?\s+([A-Za-z_]\w*)\s*\(/.exec(line);
    if (!m || KEYWORDS.has(m[1]!) || m[1] === 'module') return;
    if (coreModules.has(m[1]!)) instantiated = true;
    else if (!wrapperModules.has(m[1]!))
      errors.push({
        file: wrapperPath,
        line: i + 1,
        col: line.indexOf(m[1]!) + 1,
        message: `Cannot find file containing module: '${m[1]}'`,
        text: text.split('\n')[i] ?? '',
        width: m[1]!.length,
      });
  });
  return { errors, instantiated };
}
