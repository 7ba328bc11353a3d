/**
 * Just enough Verilog reading for the adapter and the offline model: comments blanked out with
 * positions kept, a module's port list (ANSI or not) with directions and widths, the module
 * instantiations of a file with their named pins, and whether two texts hold the same code. It
 * tokenises; it does not elaborate. Unit tests read a DUT's ports with it, the offline model checks a
 * testbench's pins and a Generic Tile wrapper with it, and the Generic Tile support check compares a
 * core descriptor with its RTL.
 */

export class VerilogReadError extends Error {
  override name = 'VerilogReadError';
}

/** Comments and string literals blanked out, keeping every other character's line and column. */
export function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\\n])*"/g, (m) => m.replace(/[^\n]/g, ' '));
}

/** The code of a text with comments dropped and whitespace squashed: equal for texts that differ only there. */
export function codeOf(text: string): string {
  return stripComments(text).replace(/\s+/g, ' ').trim();
}

export const sameCode = (a: string, b: string): boolean => codeOf(a) === codeOf(b);

/** Verilog and SystemVerilog keywords that can start a statement where an instantiation could. */
export const KEYWORDS: ReadonlySet<string> = new Set(
  (
    'module macromodule endmodule input output inout wire reg logic integer real time parameter localparam genvar ' +
    'generate endgenerate assign always always_ff always_comb always_latch initial final begin end if else case ' +
    'casez casex endcase default for while repeat forever posedge negedge or and not function endfunction task ' +
    'endtask return typedef struct packed enum union signed unsigned int bit byte shortint longint string void ' +
    'automatic static const assert assume cover property import export package endpackage interface endinterface ' +
    'modport unique priority wand wor supply0 supply1 tri tri0 tri1 var disable wait fork join join_any join_none ' +
    'specify endspecify primitive endprimitive table endtable defparam timescale define ifdef ifndef elsif endif include'
  ).split(' '),
);

interface Token {
  readonly text: string;
  /** Offset in the text. */
  readonly at: number;
}

/** Identifiers (with `$` and backtick prefixes kept), numbers and single punctuation characters. */
function tokens(code: string): Token[] {
  const out: Token[] = [];
  for (const m of code.matchAll(/[`$]?[A-Za-z_][\w$]*|\d[\w.']*|'[sS]?[bBoOdDhH][\w?]*|\S/g))
    out.push({ text: m[0], at: m.index! });
  return out;
}

const isIdent = (text: string | undefined): boolean => !!text && /^[A-Za-z_][\w$]*$/.test(text);

/** The index of the token closing the bracket opened at `open`, or -1. */
function closing(toks: readonly Token[], open: number): number {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const stack: string[] = [];
  for (let i = open; i < toks.length; i++) {
    const t = toks[i]!.text;
    if (t in pairs) stack.push(pairs[t]!);
    else if (t === stack.at(-1)) {
      stack.pop();
      if (!stack.length) return i;
    }
  }
  return -1;
}

/** 1-based line and column of an offset. */
export function position(text: string, at: number): { line: number; col: number } {
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  return { line, col: at - before.lastIndexOf('\n') };
}

/** Names of the modules a text defines. */
export function definedModules(text: string): string[] {
  return [...stripComments(text).matchAll(/\b(?:macro)?module\s+([A-Za-z_]\w*)/g)].map((m) => m[1]!);
}

export type Direction = 'input' | 'output' | 'inout';

export interface Port {
  readonly name: string;
  /** Null when neither the port list nor the body declares it. */
  readonly direction: Direction | null;
  /** The packed range as written (`[31:0]`), or null for a scalar or a user-defined type. */
  readonly range: string | null;
  /** Bits, when the range evaluates (parameters with numeric defaults are known); null otherwise. */
  readonly width: number | null;
  /** 1-based line of the declaration. */
  readonly line: number;
}

export interface ModuleHeader {
  readonly name: string;
  readonly ports: readonly Port[];
  /** Parameters with numeric defaults. */
  readonly parameters: ReadonlyMap<string, number>;
}

const DIRECTIONS = new Set(['input', 'output', 'inout']);
const NET_WORDS = new Set([
  'wire',
  'reg',
  'logic',
  'var',
  'signed',
  'unsigned',
  'wand',
  'wor',
  'tri',
  'bit',
  'integer',
]);

/**
 * The ports of module `name` (the first module when no name is given), in declaration order.
 * Throws VerilogReadError when the module or its port list cannot be found.
 */
export function readModule(text: string, name?: string): ModuleHeader {
  // Preprocessor lines (`ifdef ... `endif) are dropped: both branches' ports are listed.
  const code = stripComments(text).replace(/^[ \t]*`.*$/gm, (m) => ' '.repeat(m.length));
  const toks = tokens(code);
  const start = toks.findIndex(
    (t, i) => (t.text === 'module' || t.text === 'macromodule') && (!name || toks[i + 1]?.text === name),
  );
  if (start < 0 || !isIdent(toks[start + 1]?.text))
    throw new VerilogReadError(name ? `no module ${name} is defined` : 'no module is defined');
  const moduleName = toks[start + 1]!.text;
  let i = start + 2;
  while (toks[i]?.text === 'import') {
    while (i < toks.length && toks[i]!.text !== ';') i++;
    i++;
  }
  const parameters = new Map<string, number>();
  if (toks[i]?.text === '#' && toks[i + 1]?.text === '(') {
    const end = closing(toks, i + 1);
    if (end < 0) throw new VerilogReadError(`the parameter list of module ${moduleName} is never closed`);
    readParameters(toks.slice(i + 2, end), parameters);
    i = end + 1;
  }
  const endOfModule = toks.findIndex((t, k) => k > i && t.text === 'endmodule');
  const body = toks.slice(i, endOfModule < 0 ? toks.length : endOfModule);
  readParameters(body, parameters);
  if (toks[i]?.text === ';') return { name: moduleName, ports: [], parameters };
  if (toks[i]?.text !== '(') throw new VerilogReadError(`module ${moduleName} has no port list`);
  const end = closing(toks, i);
  if (end < 0) throw new VerilogReadError(`the port list of module ${moduleName} is never closed`);

  const items = splitTopLevel(toks.slice(i + 1, end));
  const declared = bodyDeclarations(toks.slice(end + 1, endOfModule < 0 ? toks.length : endOfModule));
  const ports: Port[] = [];
  let direction: Direction | null = null;
  let range: string | null = null;
  let typed = false;
  for (const words of items) {
    const nameAt = lastNameIndex(words);
    if (nameAt < 0) continue;
    const portName = words[nameAt]!.text;
    const line = position(code, words[nameAt]!.at).line;
    const dir = words.find((t) => DIRECTIONS.has(t.text));
    if (dir) {
      direction = dir.text as Direction;
      range = packedRange(words.slice(0, nameAt));
      typed = words
        .slice(words.indexOf(dir) + 1, nameAt)
        .some((t) => isIdent(t.text) && !NET_WORDS.has(t.text) && !KEYWORDS.has(t.text));
    } else if (direction === null) {
      // A non-ANSI port list names the ports; the body declares them.
      const body = declared.get(portName);
      ports.push({
        name: portName,
        direction: body?.direction ?? null,
        range: body?.range ?? null,
        width: body ? 1 : null,
        line,
      });
      continue;
    } else {
      // `input [3:0] a, b`: b continues a's declaration.
      range = packedRange(words.slice(0, nameAt)) ?? range;
    }
    ports.push({ name: portName, direction, range, width: typed && !range ? null : 1, line });
  }
  return {
    name: moduleName,
    ports: ports.map((p) => (p.range ? { ...p, width: rangeWidth(p.range, parameters) } : p)),
    parameters,
  };
}

/** Items separated by commas outside brackets. */
function splitTopLevel(toks: readonly Token[]): Token[][] {
  const items: Token[][] = [[]];
  let depth = 0;
  for (const t of toks) {
    if ('([{'.includes(t.text)) depth++;
    else if (')]}'.includes(t.text)) depth--;
    if (t.text === ',' && depth === 0) items.push([]);
    else items.at(-1)!.push(t);
  }
  return items.filter((item) => item.length);
}

/** The index of the declared name: the last identifier outside brackets and before any `=`. */
function lastNameIndex(words: readonly Token[]): number {
  let depth = 0;
  let found = -1;
  for (let k = 0; k < words.length; k++) {
    const t = words[k]!.text;
    if (t === '=' && depth === 0) break;
    if ('([{'.includes(t)) depth++;
    else if (')]}'.includes(t)) depth--;
    else if (depth === 0 && isIdent(t) && !KEYWORDS.has(t)) found = k;
  }
  return found;
}

function packedRange(words: readonly Token[]): string | null {
  const open = words.findIndex((t) => t.text === '[');
  if (open < 0) return null;
  const end = closing(words, open);
  return end < 0
    ? null
    : `[${words
        .slice(open + 1, end)
        .map((t) => t.text)
        .join('')}]`;
}

/** Non-ANSI port declarations in a module body: `input [3:0] a, b;`. */
function bodyDeclarations(body: readonly Token[]): Map<string, Pick<Port, 'direction' | 'range'>> {
  const out = new Map<string, Pick<Port, 'direction' | 'range'>>();
  for (let k = 0; k < body.length; k++) {
    if (!DIRECTIONS.has(body[k]!.text)) continue;
    const stop = body.findIndex((t, j) => j > k && t.text === ';');
    const statement = body.slice(k, stop < 0 ? body.length : stop);
    const direction = body[k]!.text as Direction;
    const names = splitTopLevel(statement.slice(1));
    const range = packedRange(names[0] ?? []);
    for (const item of names) {
      const at = lastNameIndex(item);
      if (at >= 0) out.set(item[at]!.text, { direction, range });
    }
    k = stop < 0 ? body.length : stop;
  }
  return out;
}

/** `parameter [31:0] A = 4, B = 8` entries with plain numeric defaults. */
function readParameters(toks: readonly Token[], into: Map<string, number>): void {
  for (let k = 0; k < toks.length; k++) {
    if (toks[k]!.text !== 'parameter' && toks[k]!.text !== 'localparam') continue;
    for (let j = k + 1; j < toks.length - 2; j++) {
      const t = toks[j]!.text;
      if (t === ';' || t === ')' || t === 'parameter' || t === 'localparam') break;
      if (isIdent(t) && toks[j + 1]!.text === '=') {
        const value = literal(toks[j + 2]!.text);
        if (value !== null && !into.has(t)) into.set(t, value);
      }
    }
  }
}

function literal(text: string): number | null {
  if (/^\d+$/.test(text)) return Number(text);
  const sized = /^(?:\d+)?'[sS]?([bBoOdDhH])([0-9a-fA-F_]+)$/.exec(text);
  if (!sized) return null;
  const base = { b: 2, o: 8, d: 10, h: 16 }[sized[1]!.toLowerCase() as 'b' | 'o' | 'd' | 'h'];
  const value = parseInt(sized[2]!.replace(/_/g, ''), base);
  return Number.isFinite(value) ? value : null;
}

/** Bits of `[msb:lsb]`, with parameters substituted; null when it does not evaluate. */
export function rangeWidth(range: string, parameters: ReadonlyMap<string, number> = new Map()): number | null {
  const m = /^\[(.+):(.+)\]$/.exec(range.replace(/\s+/g, ''));
  if (!m) return null;
  const [msb, lsb] = [evaluate(m[1]!, parameters), evaluate(m[2]!, parameters)];
  return msb === null || lsb === null ? null : Math.abs(msb - lsb) + 1;
}

/** Integer arithmetic (+ - * / and parentheses) over literals and known parameters. */
function evaluate(expr: string, parameters: ReadonlyMap<string, number>): number | null {
  const toks = expr.match(/[A-Za-z_]\w*|\d+'[sS]?[bBoOdDhH][0-9a-fA-F_]+|\d+|[-+*/()]/g) ?? [];
  if (toks.join('') !== expr) return null;
  let k = 0;
  const atom = (): number | null => {
    const t = toks[k++];
    if (t === undefined) return null;
    if (t === '(') {
      const v = sum();
      return toks[k++] === ')' ? v : null;
    }
    if (t === '-') {
      const v = atom();
      return v === null ? null : -v;
    }
    return isIdent(t) ? (parameters.get(t) ?? null) : literal(t);
  };
  const product = (): number | null => {
    let v = atom();
    while (v !== null && (toks[k] === '*' || toks[k] === '/')) {
      const op = toks[k++];
      const r = atom();
      if (r === null || (op === '/' && r === 0)) return null;
      v = op === '*' ? v * r : Math.trunc(v / r);
    }
    return v;
  };
  const sum = (): number | null => {
    let v = product();
    while (v !== null && (toks[k] === '+' || toks[k] === '-')) {
      const op = toks[k++];
      const r = product();
      if (r === null) return null;
      v = op === '+' ? v + r : v - r;
    }
    return v;
  };
  const value = sum();
  return k === toks.length ? value : null;
}

export interface Pin {
  readonly name: string;
  readonly line: number;
  readonly col: number;
}

export interface Instance {
  /** The instantiated module's name, with where it stands. */
  readonly module: string;
  readonly line: number;
  readonly col: number;
  readonly name: string;
  /** Named connections in order; empty for positional ones. */
  readonly pins: readonly Pin[];
  /** `.*` or positional connections: every pin counts as connected. */
  readonly connectsAll: boolean;
}

/** The module instantiations of a text: `type [#(...)] name (...)`, with their named pins. */
export function instances(text: string): Instance[] {
  const code = stripComments(text);
  const toks = tokens(code);
  const out: Instance[] = [];
  for (let i = 0; i < toks.length; i++) {
    const type = toks[i]!.text;
    if (!isIdent(type) || KEYWORDS.has(type) || toks[i - 1]?.text === '.') continue;
    let j = i + 1;
    if (toks[j]?.text === '#') {
      if (toks[j + 1]?.text !== '(') continue;
      const end = closing(toks, j + 1);
      if (end < 0) continue;
      j = end + 1;
    }
    if (!isIdent(toks[j]?.text) || KEYWORDS.has(toks[j]!.text) || toks[j + 1]?.text !== '(') continue;
    const end = closing(toks, j + 1);
    if (end < 0) continue;
    const inner = toks.slice(j + 2, end);
    const pins: Pin[] = [];
    let depth = 0;
    let named = false;
    let wildcard = false;
    for (let k = 0; k < inner.length; k++) {
      const t = inner[k]!.text;
      if ('([{'.includes(t)) depth++;
      else if (')]}'.includes(t)) depth--;
      else if (depth === 0 && t === '.') {
        named = true;
        const next = inner[k + 1];
        if (next?.text === '*') wildcard = true;
        else if (next && isIdent(next.text)) pins.push({ name: next.text, ...position(code, next.at) });
      }
    }
    const connectsAll = wildcard || (!named && inner.length > 0);
    const at = position(code, toks[i]!.at);
    out.push({ module: type, line: at.line, col: at.col, name: toks[j]!.text, pins, connectsAll });
    i = end;
  }
  return out;
}
