/**
 * Generic Tile cores in a checkout. A core described by a descriptor (name, top module, ports, ISA)
 * lives in piton/design/chip/tile/generic/<name>/: its sources under rtl/, and a tile-facing wrapper
 * `<name>_wrapper.v` that the descriptor generates as a skeleton and an rtl task then writes; sims
 * builds it with `-generic_core=<name>` in place of the core flag. This module holds what the tile
 * can host, the skeleton, the scaffold, and whether a checkout has a Generic Tile at all.
 *
 * OpenPiton itself has no Generic Tile: its sims has no -generic_core flag (it dies with
 * "Unprocessed argument"). The offline model has one; a real checkout needs a matching sims patch.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { GENERIC_TILE_DIR, genericCorePaths } from './geometry.ts';
import { definedModules, instances, readModule, sameCode, type Direction, type ModuleHeader } from './verilog.ts';

/** What a port is to the tile: its clock and reset, or a signal of the memory transducer. */
export const PORT_ROLES = [
  'clock',
  'reset',
  'reset_n',
  'mem_valid',
  'mem_ready',
  'mem_addr',
  'mem_wdata',
  'mem_wstrb',
  'mem_rdata',
  'irq',
] as const;
export type PortRole = (typeof PORT_ROLES)[number];

export interface GenericCorePort {
  readonly name: string;
  readonly direction: Direction;
  readonly width: number;
  readonly role?: PortRole | null;
}

/** A core for the Generic Tile, as its descriptor states it (validated in mace/core-descriptor.ts). */
export interface GenericCoreDescriptor {
  readonly name: string;
  /** The core's top module, defined by one of its sources. */
  readonly top: string;
  readonly isa: string;
  readonly ports: readonly GenericCorePort[];
  /** The core's own files (absolute paths), copied into rtl/; empty when rtl/ already holds them. */
  readonly sources: readonly string[];
}

/**
 * The transducer's side of each role: the tile reaches the L1.5 through PicoRV32's memory interface
 * (pico_l15_transducer), a valid/ready request with a 32-bit address and data and a 4-bit strobe.
 */
const TRANSDUCER: Readonly<Record<Exclude<PortRole, 'reset' | 'reset_n' | 'irq'>, [Direction, number]>> = {
  clock: ['input', 1],
  mem_valid: ['output', 1],
  mem_ready: ['input', 1],
  mem_addr: ['output', 32],
  mem_wdata: ['output', 32],
  mem_wstrb: ['output', 4],
  mem_rdata: ['input', 32],
};

const RV32 = /^rv32[ie][a-z0-9_]*$/;

/**
 * Why the Generic Tile cannot host the core, one reason per line; empty when it can. It runs RV32
 * programs with PicoRV32's toolchain and boot flow, and connects the core through PicoRV32's memory
 * transducer, so it needs a clock, one reset and that memory interface, and has no pads for inouts.
 */
export function hostingProblems(core: GenericCoreDescriptor): string[] {
  const problems: string[] = [];
  const isa = core.isa.toLowerCase();
  if (!RV32.test(isa))
    problems.push(
      /^rv64/.test(isa)
        ? `ISA ${core.isa}: the Generic Tile runs RV32 programs (PicoRV32's rv32 toolchain, 32-bit transducer); a 64-bit core needs a tile of its own, as Ariane has`
        : `ISA ${core.isa}: the Generic Tile runs RISC-V RV32 programs only (rv32i or rv32e with extensions, e.g. rv32imc)`,
    );
  for (const port of core.ports.filter((p) => p.direction === 'inout'))
    problems.push(`port ${port.name} is inout: the tile has no pads to give a core`);
  const byRole = (role: PortRole) => core.ports.filter((p) => p.role === role);
  for (const [role, [direction, width]] of Object.entries(TRANSDUCER) as [PortRole, [Direction, number]][]) {
    const ports = byRole(role);
    if (!ports.length) {
      problems.push(
        role === 'clock'
          ? 'no port has the role clock: the tile must clock the core'
          : `no port has the role ${role}: the Generic Tile reaches the L1.5 through PicoRV32's memory transducer ` +
              '(mem_valid, mem_ready, 32-bit mem_addr, mem_wdata and mem_rdata, 4-bit mem_wstrb); a core with another bus ' +
              '(AXI, TileLink, separate instruction and data ports) needs a transducer of its own first',
      );
      continue;
    }
    for (const port of ports)
      if (port.direction !== direction || port.width !== width)
        problems.push(
          `port ${port.name} (role ${role}) is an ${port.direction} of ${port.width} bit(s); the transducer needs an ${direction} of ${width}`,
        );
  }
  const resets = [...byRole('reset'), ...byRole('reset_n')];
  if (resets.length !== 1)
    problems.push(
      resets.length
        ? `ports ${resets.map((p) => p.name).join(', ')} all claim the reset: the tile drives one`
        : 'no port has the role reset or reset_n: the tile must reset the core',
    );
  else if (resets[0]!.direction !== 'input' || resets[0]!.width !== 1)
    problems.push(`port ${resets[0]!.name} (the reset) must be a 1-bit input`);
  return problems;
}

/**
 * Where the descriptor and the core's RTL disagree: each descriptor port must be a port of the top
 * module with the same direction (and width, where the RTL's evaluates), and the wrapper can only
 * connect ports the descriptor lists.
 */
export function rtlProblems(core: GenericCoreDescriptor, top: ModuleHeader): string[] {
  const problems: string[] = [];
  const rtl = new Map(top.ports.map((p) => [p.name, p]));
  for (const port of core.ports) {
    const real = rtl.get(port.name);
    if (!real) problems.push(`port ${port.name} is not a port of ${top.name}`);
    else if (real.direction && real.direction !== port.direction)
      problems.push(
        `port ${port.name} is an ${port.direction} in the descriptor but an ${real.direction} of ${top.name}`,
      );
    else if (real.width !== null && real.width !== port.width)
      problems.push(`port ${port.name} is ${port.width} bit(s) in the descriptor but ${real.width} in ${top.name}`);
  }
  const listed = new Set(core.ports.map((p) => p.name));
  for (const port of top.ports)
    if (!listed.has(port.name)) problems.push(`${top.name}'s port ${port.name} is not in the descriptor`);
  return problems;
}

/** The core's source files: the descriptor's, or those already in the checkout's rtl/ folder. */
export function coreSources(root: string, core: GenericCoreDescriptor): string[] {
  if (core.sources.length) return [...core.sources];
  const dir = join(root, genericCorePaths(core.name).rtl);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /\.s?v$/.test(name))
    .sort()
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

/** The top module's header from the core's sources; a string says why it could not be read. */
export function topModule(root: string, core: GenericCoreDescriptor): ModuleHeader | string {
  const sources = coreSources(root, core);
  if (!sources.length)
    return `no source of the core: list its files under sources, or put them in ${genericCorePaths(core.name).rtl}/`;
  for (const path of sources) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return `cannot read the core's source ${path}`;
    }
    if (!definedModules(text).includes(core.top)) continue;
    try {
      return readModule(text, core.top);
    } catch (error) {
      return `cannot read the ports of ${core.top} in ${path}: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return `no source defines the top module ${core.top} (${sources.map((s) => basename(s)).join(', ')})`;
}

/**
 * Why a checkout cannot build Generic Tile cores, or undefined when it can: it needs the Generic Tile
 * folder, and a sims that knows -generic_core (OpenPiton's sims,2.0 does not).
 */
export function genericTileProblem(root: string): string | undefined {
  if (!existsSync(join(root, GENERIC_TILE_DIR)))
    return (
      `this checkout has no Generic Tile (${GENERIC_TILE_DIR} is missing). OpenPiton itself has none: its sims has no ` +
      "-generic_core flag and dies with 'Unprocessed argument: -generic_core=<name>'. Generic Tile cores build on the " +
      'offline model (mace offline init) or on a checkout whose sims was patched to take -generic_core'
    );
  const sims = join(root, 'piton/tools/src/sims/sims,2.0');
  if (existsSync(sims) && !readFileSync(sims, 'latin1').includes('generic_core'))
    return (
      `${GENERIC_TILE_DIR} exists, but piton/tools/src/sims/sims,2.0 does not know -generic_core: ` +
      "OpenPiton's sims dies with 'Unprocessed argument: -generic_core=<name>' until it is patched to build a Generic Tile core"
    );
  return undefined;
}

const portDeclaration = (port: GenericCorePort, width: number): string =>
  `    ${port.direction.padEnd(6)} ${port.width > 1 ? `[${port.width - 1}:0]`.padEnd(width) : ' '.repeat(width)} ${port.name}`;

/**
 * The wrapper the descriptor generates: module `<name>_wrapper` with the core's ports, and comments
 * that say what to write. It instantiates nothing, so no core runs until an rtl task writes it.
 */
export function wrapperSkeleton(core: GenericCoreDescriptor): string {
  const width = Math.max(0, ...core.ports.map((p) => (p.width > 1 ? `[${p.width - 1}:0]`.length : 0)));
  const declarations = core.ports.map(
    (p, i) =>
      `${portDeclaration(p, width)}${i < core.ports.length - 1 ? ',' : ''}${p.role ? ` // role ${p.role}` : ''}`,
  );
  const example = core.ports.map((p, i) => `//         .${p.name}(${p.name})${i < core.ports.length - 1 ? ',' : ''}`);
  return [
    `// Generic Tile wrapper of the ${core.name} core (ISA ${core.isa}), generated from its core descriptor.`,
    `// The core's sources are in rtl/; its top module is ${core.top}. The tile connects the ports below`,
    "// (clock, reset and PicoRV32's memory interface) through its transducer.",
    '//',
    `// TODO: instantiate ${core.top} here and connect every port to it. Until then no core runs in`,
    '// the tile: the build succeeds and every program times out. For example:',
    `//     ${core.top} core (`,
    ...example,
    '//     );',
    `module ${core.name}_wrapper (`,
    ...declarations,
    ');',
    'endmodule',
    '',
  ].join('\n');
}

/** True while the wrapper is the skeleton in all but its comments and spacing (or is missing). */
export function unwrittenWrapper(core: GenericCoreDescriptor, wrapper: string | undefined): boolean {
  return wrapper === undefined || sameCode(wrapper, wrapperSkeleton(core));
}

/** The wrapper as the checkout holds it, or undefined when there is none. */
export function readWrapper(root: string, name: string): string | undefined {
  try {
    return readFileSync(join(root, genericCorePaths(name).wrapper), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Lay the core out in the checkout: its sources copied into rtl/, the skeleton written when there is
 * no wrapper or the wrapper instantiates nothing (an older descriptor's skeleton; a wrapper someone
 * wrote is kept), and Flist.<name> listing both. Returns the checkout-relative paths it wrote.
 */
export function scaffoldGenericCore(root: string, core: GenericCoreDescriptor): string[] {
  const paths = genericCorePaths(core.name);
  const written: string[] = [];
  const write = (rel: string, content: string) => {
    const full = join(root, rel);
    if (existsSync(full) && readFileSync(full, 'utf8') === content) return;
    writeFileSync(full, content);
    written.push(rel);
  };
  mkdirSync(join(root, paths.rtl), { recursive: true });
  for (const source of core.sources) {
    const rel = `${paths.rtl}/${basename(source)}`;
    if (existsSync(join(root, rel)) && readFileSync(join(root, rel), 'utf8') === readFileSync(source, 'utf8')) continue;
    copyFileSync(source, join(root, rel));
    written.push(rel);
  }
  const wrapper = readWrapper(root, core.name);
  if (wrapper === undefined || !instances(wrapper).length) write(paths.wrapper, wrapperSkeleton(core));
  const files = coreSources(root, { ...core, sources: [] }).map((p) => `rtl/${basename(p)}`);
  write(paths.flist, [`${core.name}_wrapper.v`, ...files].join('\n') + '\n');
  return written;
}
