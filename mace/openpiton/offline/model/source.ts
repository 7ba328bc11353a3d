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
import { genericCorePaths } from '../../geometry.ts';
import { definedModules, KEYWORDS, stripComments } from '../../verilog.ts';
import type { ModelCore, RunDefect } from './design.ts';
import { balanceErrors, elaborate, missingModule, type SourceFile } from './elaborate.ts';
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
  /** Verilator's tag after `%Error-` (PINNOTFOUND), when it has one. */
  readonly tag?: string;
}

export interface SourceState {
  readonly errors: readonly SourceError[];
  /** Verilator warnings about the sources (a wrapper's unconnected core pins). */
  readonly warnings: readonly SourceError[];
  readonly defect?: { readonly effect: RunDefect; readonly file: string; readonly line: number };
  readonly finishMaskBits: number;
  readonly coreInstantiated: boolean;
}

export const PC_CMP_PATH = 'piton/verif/env/manycore/pc_cmp.v.pyv';

export function analyseSources(root: string, core: ModelCore, genericCore?: string): SourceState {
  const errors: SourceError[] = [];
  let defect: SourceState['defect'];
  for (const source of MODEL_SOURCES.filter((s) => s.cores.includes(core))) {
    const result = checkModelSource(root, source);
    errors.push(...result.errors);
    defect ??= result.defect;
  }
  let coreInstantiated = true;
  const warnings: SourceError[] = [];
  if (core === 'generic') {
    const generic = checkGenericCore(root, genericCore ?? '');
    errors.push(...generic.errors);
    warnings.push(...generic.warnings);
    coreInstantiated = generic.instantiated;
  }
  return {
    errors,
    warnings,
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

/** The Verilog and SystemVerilog files under a directory, read. */
function sourcesUnder(dir: string): SourceFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((entry) => join(dir, entry))
    .filter((path) => /\.s?v$/.test(path) && statSync(path).isFile())
    .sort()
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

/**
 * A Generic Tile core's wrapper: it must exist and elaborate against the modules of its folder, and
 * it must instantiate one of the core's own modules (defined under its rtl/) for the core to run.
 * The skeleton a core descriptor generates instantiates none, whatever its comments say.
 */
function checkGenericCore(
  root: string,
  name: string,
): Pick<SourceState, 'errors' | 'warnings'> & { instantiated: boolean } {
  const paths = genericCorePaths(name);
  const wrapperPath = join(root, paths.wrapper);
  const text = readText(wrapperPath);
  if (text === undefined)
    return { errors: [missingModule(wrapperPath, `${name}_wrapper`)], warnings: [], instantiated: false };
  const core = sourcesUnder(join(root, paths.rtl));
  const wrapper = { path: wrapperPath, text };
  const result = elaborate(
    [...sourcesUnder(join(root, paths.dir)).filter((f) => f.path !== wrapperPath), wrapper],
    [wrapper],
  );
  const coreModules = new Set(core.flatMap((f) => definedModules(f.text)));
  return {
    errors: result.errors,
    warnings: result.warnings,
    instantiated: [...result.instantiated].some((m) => coreModules.has(m)),
  };
}
