/**
 * Is this OpenPiton checkout ready to build and simulate? Checks the layout the adapter relies on,
 * what the environment prologue puts on PATH (sims, Verilator and the tools OpenPiton's scripts call),
 * whether a Verilator-5 checkout carries the two PicoRV32 fixes it needs, the RISC-V toolchains
 * each core's programs are compiled with, and whether it can build Generic Tile cores (OpenPiton
 * itself cannot). Every check says what is missing, why it matters and which
 * Debian package provides it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { genericTileProblem } from './generic-tile.ts';
import { GENERIC_TILE_DIR, type CoreKind } from './geometry.ts';
import { needsNoTiming, verilatorVersion } from './parse.ts';
import { runShell } from './shell.ts';

export type CheckScope = 'checkout' | CoreKind;

export interface DoctorCheck {
  readonly scope: CheckScope;
  readonly name: string;
  readonly ok: boolean;
  /** What was found, or what is missing and why it matters. */
  readonly detail: string;
  /** How to fix it, when it failed. */
  readonly fix?: string;
}

export interface DoctorReport {
  readonly root: string;
  readonly checks: readonly DoctorCheck[];
}

/** A check of a core counts only when that core is asked about; checkout checks always count. */
export const requiredFailures = (report: DoctorReport, cores: readonly CoreKind[]): DoctorCheck[] =>
  report.checks.filter((check) => !check.ok && (check.scope === 'checkout' || cores.includes(check.scope)));

/** Tools OpenPiton's flow runs, with the Debian package that provides each and why it is needed. */
const TOOLS: readonly { scope: CheckScope; tool: string; pkg: string; why: string }[] = [
  { scope: 'checkout', tool: 'verilator', pkg: 'verilator', why: 'builds every model' },
  {
    scope: 'checkout',
    tool: 'csh',
    pkg: 'csh',
    why: "sims preprocesses its configuration with bw_cpp, a csh script; without csh it dies with 'Could not open sims.config'",
  },
  { scope: 'checkout', tool: 'perl', pkg: 'perl', why: 'sims and regreport are Perl' },
  { scope: 'checkout', tool: 'python3', pkg: 'python3', why: 'pyhp generates the .tmp.v RTL' },
  { scope: 'checkout', tool: 'make', pkg: 'make', why: "compiles Verilator's C++" },
  { scope: 'checkout', tool: 'g++', pkg: 'g++', why: "compiles Verilator's C++" },
  { scope: 'checkout', tool: 'xxd', pkg: 'xxd', why: 'turns a compiled program into mem.image' },
  {
    scope: 'pico',
    tool: 'riscv64-unknown-elf-gcc',
    pkg: 'gcc-riscv64-unknown-elf',
    why: 'rv32_as assembles PicoRV32 programs (-rv32_target_triple=riscv64-unknown-elf)',
  },
  {
    scope: 'pico',
    tool: 'riscv64-unknown-elf-objcopy',
    pkg: 'binutils-riscv64-unknown-elf',
    why: 'rv32_as makes mem.image and symbol.tbl',
  },
  {
    scope: 'ariane',
    tool: 'riscv64-unknown-elf-gcc',
    pkg: 'a RISC-V toolchain with newlib in $RISCV',
    why: 'rv64_cc compiles every Ariane program',
  },
  {
    scope: 'ariane',
    tool: 'dtc',
    pkg: 'device-tree-compiler',
    why: "the Ariane build compiles the platform's device tree into the boot ROM",
  },
];

const PICORV32 = 'piton/design/chip/tile/pico/rtl/picorv32.v';
const PC_CMP = 'piton/verif/env/manycore/pc_cmp.v.pyv';
const ARIANE = 'piton/design/chip/tile/ariane';

export type FixState = 'applied' | 'missing' | 'unknown' | 'absent';

/**
 * Fix 6: upstream PicoRV32 leaves reset only on an interrupt (`else if (pico_int)`), which never comes
 * under Verilator 5; the fix adds a `booted` register so the core leaves reset once by itself.
 */
export function picoResetFix(root: string): FixState {
  const text = readText(join(root, PICORV32));
  if (text === null) return 'absent';
  if (/\bbooted\b/.test(text)) return 'applied';
  if (/else\s+if\s*\(\s*pico_int\s*\)\s*begin\s*resetn\s*<=\s*1'b1/.test(text)) return 'missing';
  return 'unknown';
}

/**
 * Fix 7: upstream pc_cmp marks a PicoRV32 tile active through an `always @*` latch on pico_int, so its
 * traps are never seen and runs end at max cycles; the fix marks it active on the clock after reset.
 */
export function picoMonitorFix(root: string): FixState {
  const text = readText(join(root, PC_CMP));
  if (text === null) return 'absent';
  const section = /`ifdef RTL_PICO0([\s\S]*?)`endif \/\/ RTL_PICO0/.exec(text)?.[1];
  if (section === undefined) return 'unknown';
  if (/always\s*@\s*\*[\s\S]*?PICO_CORE0\.pico_int/.test(section)) return 'missing';
  if (/always\s*@\s*\(\s*posedge\s+clk\s*\)[\s\S]*?active_thread/.test(section) && /rst_l/.test(section))
    return 'applied';
  return 'unknown';
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** One shell call through the prologue for `core`, printing `key=value` lines. */
async function probe(root: string, core: CoreKind, script: string, env?: Readonly<Record<string, string>>) {
  const dir = await mkdtemp(join(tmpdir(), 'mace-doctor-'));
  try {
    const result = await runShell({
      root,
      core,
      cwd: root,
      command: script,
      timeoutS: 120,
      stdoutPath: join(dir, 'stdout'),
      stderrPath: join(dir, 'stderr'),
      ...(env ? { env } : {}),
    });
    const values = new Map<string, string>();
    for (const line of result.stdout.split('\n')) {
      const at = line.indexOf('=');
      if (at > 0) values.set(line.slice(0, at), line.slice(at + 1));
    }
    return { ok: result.returncode === 0, values, stderr: result.stderr.trim() };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const lookups = (tools: readonly string[]) =>
  tools.map((tool) => `printf '%s=%s\\n' ${tool} "$(command -v ${tool})"`).join('; ');

export interface DoctorOptions {
  readonly env?: Readonly<Record<string, string>>;
}

export async function checkCheckout(rootArg: string, options: DoctorOptions = {}): Promise<DoctorReport> {
  const root = resolve(rootArg);
  const checks: DoctorCheck[] = [];
  const add = (check: DoctorCheck) => checks.push(check);

  if (!existsSync(root) || !statSync(root).isDirectory()) {
    add({
      scope: 'checkout',
      name: 'PITON_ROOT',
      ok: false,
      detail: `${root} is not a directory`,
      fix: 'point --piton-root (or PITON_ROOT) at an OpenPiton checkout',
    });
    return { root, checks };
  }
  const layout = ['piton/piton_settings.bash', 'piton/tools/bin/sims', 'piton/verif/env/manycore'];
  const absent = layout.filter((rel) => !existsSync(join(root, rel)));
  add({
    scope: 'checkout',
    name: 'layout',
    ok: absent.length === 0,
    detail: absent.length ? `missing ${absent.join(', ')}: this is not an OpenPiton checkout` : layout.join(', '),
    ...(absent.length ? { fix: 'clone PrincetonUniversity/openpiton and point PITON_ROOT at its top folder' } : {}),
  });
  if (absent.includes('piton/piton_settings.bash')) return { root, checks };

  const common = TOOLS.filter((t) => t.scope === 'checkout' || t.scope === 'pico').map((t) => t.tool);
  const base = await probe(
    root,
    'pico',
    `printf 'sims=%s\\n' "$(command -v sims)"; ${lookups([...new Set(common)])}; printf 'version=%s\\n' "$(verilator --version 2>/dev/null)"`,
    options.env,
  );
  add({
    scope: 'checkout',
    name: 'prologue',
    ok: base.ok,
    detail: base.ok
      ? 'bash -lc with PITON_ROOT and piton_settings.bash works'
      : `the environment prologue failed: ${base.stderr.slice(-300)}`,
  });
  const sims = base.values.get('sims') ?? '';
  add({
    scope: 'checkout',
    name: 'sims',
    ok: sims !== '',
    detail: sims
      ? `${sims} (on PATH after the prologue)`
      : 'sims is not on PATH after sourcing piton/piton_settings.bash',
    ...(sims ? {} : { fix: 'check that piton_settings.bash puts $DV_ROOT/tools/bin on PATH' }),
  });

  const ariane = await probe(
    root,
    'ariane',
    `${lookups(['riscv64-unknown-elf-gcc', 'dtc'])}; printf 'RISCV=%s\\n' "$RISCV"; ` +
      `printf 'gawk=%s\\n' "$(echo yes | awk -e '{print $1}' 2>/dev/null)"; ` +
      `printf 'newlib=%s\\n' "$(printf '#include <string.h>\\n' | riscv64-unknown-elf-gcc -E -x c - >/dev/null 2>&1 && echo yes)"`,
    options.env,
  );
  for (const { scope, tool, pkg, why } of TOOLS) {
    const found = (scope === 'ariane' ? ariane : base).values.get(tool) ?? '';
    add({
      scope,
      name: tool,
      ok: found !== '',
      detail: found || `not found: ${why}`,
      ...(found ? {} : { fix: pkg.startsWith('a ') ? `install ${pkg}` : `apt-get install ${pkg}` }),
    });
  }

  const versionText = base.values.get('version') ?? '';
  const version = verilatorVersion(versionText);
  if (version) {
    const five = needsNoTiming(versionText);
    add({
      scope: 'checkout',
      name: 'verilator version',
      ok: true,
      detail: `${versionText}${five ? ' (Verilator 5: builds get --no-timing)' : ''}`,
    });
    if (five) {
      const fix6 = picoResetFix(root);
      const fix7 = picoMonitorFix(root);
      const problems = [
        fix6 === 'missing' || fix6 === 'unknown'
          ? `${PICORV32} ${fix6 === 'missing' ? 'lacks' : 'may lack'} fix 6 (the core waits in reset for an interrupt that never comes)`
          : '',
        fix7 === 'missing' || fix7 === 'unknown'
          ? `${PC_CMP} ${fix7 === 'missing' ? 'lacks' : 'may lack'} fix 7 (a latch on pico_int means traps are never seen)`
          : '',
      ].filter(Boolean);
      add({
        scope: 'pico',
        name: 'Verilator 5 fixes',
        ok: problems.length === 0,
        detail: problems.length
          ? `PicoRV32 never starts under Verilator 5 on this checkout, so every run ends at max cycles or times out: ${problems.join('; ')}`
          : fix6 === 'absent' && fix7 === 'absent'
            ? 'no PicoRV32 sources in this checkout'
            : 'fixes 6 (picorv32.v reset) and 7 (pc_cmp.v.pyv monitor) are in place',
        ...(problems.length
          ? {
              fix: "apply fixes 6 and 7 (a `booted` register in picorv32.v's reset; a clocked active_thread block for RTL_PICO0 in pc_cmp.v.pyv)",
            }
          : {}),
      });
    }
  }

  const submodule = join(root, ARIANE);
  const arianePresent = existsSync(join(submodule, 'Flist.ariane')) || existsSync(join(submodule, '.git'));
  add({
    scope: 'ariane',
    name: 'ariane submodule',
    ok: arianePresent,
    detail: arianePresent ? submodule : `${ARIANE} is empty: Ariane builds need its sources`,
    ...(arianePresent ? {} : { fix: `git submodule update --init --recursive ${ARIANE}` }),
  });
  const gawk = ariane.values.get('gawk') === 'yes';
  add({
    scope: 'ariane',
    name: 'GNU awk',
    ok: gawk,
    detail: gawk
      ? 'awk accepts -e'
      : "awk does not accept -e (Debian's default is mawk): the Ariane build makes its device tree with riscvlib.py, which runs `awk -e`, and sims dies with 'Error compiling rv64 DTS'",
    ...(gawk ? {} : { fix: 'apt-get install gawk' }),
  });
  const newlib = ariane.values.get('newlib') === 'yes';
  add({
    scope: 'ariane',
    name: 'newlib',
    ok: newlib,
    detail: newlib
      ? `riscv64-unknown-elf-gcc has a C library (RISCV=${ariane.values.get('RISCV') ?? ''})`
      : `riscv64-unknown-elf-gcc${ariane.values.get('riscv64-unknown-elf-gcc') ? '' : ' (not found)'} has no C library headers: Ariane programs compile with syscalls.c, which includes <string.h>; Debian's gcc-riscv64-unknown-elf has no newlib`,
    ...(newlib
      ? {}
      : { fix: 'build riscv-gnu-toolchain with newlib into $RISCV (default $HOME/scratch/riscv_install)' }),
  });
  const generic = genericTileProblem(root);
  add({
    scope: 'generic',
    name: 'Generic Tile',
    ok: generic === undefined,
    detail:
      generic ??
      `${GENERIC_TILE_DIR} is present: a core from a descriptor builds with -generic_core=<name> in place of the core flag`,
    ...(generic
      ? {
          fix: 'run Generic Tile cores on an offline checkout (mace offline init), or patch sims,2.0 to take -generic_core and add the folder',
        }
      : {}),
  });
  return { root, checks };
}
