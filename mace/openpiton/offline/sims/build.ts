/**
 * `sims ... -vlt_build`: create the model directory, "run Verilator" on the design and, when
 * OpenPiton could build it, leave obj_dir/Vcmp_top (a stub that records the built design). Failures
 * print the errors the real build printed and die at the same line of sims,2.0.
 */
import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Design } from '../model/design.ts';
import { tileCount } from '../model/design.ts';
import { analyseSources } from '../model/source.ts';
import { buildSeconds, FAILURE_POINT } from '../model/timing.ts';
import { DIE_LINES } from './formats.ts';
import { die, drawFlake, sleepSeconds } from './runtime.ts';
import type { Invocation } from './invocation.ts';
import { verilatorWarning } from './formats.ts';
import { elaborationErrors, exitLine, invalidOption, timingError, warnings } from './verilator.ts';

/** The file beside Vcmp_top that records what was built (the run reads it). */
export const DESIGN_FILE = 'mace_offline_design.json';

const FLISTS_COMMON = [
  'design/include/Flist.include',
  'design/common/rtl/Flist.common',
  'design/chipset/include/Flist.include',
  'design/rtl/Flist.system',
  'design/chip/rtl/Flist.chip',
  'design/chip/pll/rtl/Flist.pll',
  'design/chip/jtag/rtl/Flist.jtag',
  'design/chip/tile/rtl/Flist.tile',
  'design/chip/tile/rtap/rtl/Flist.rtap',
  'design/chip/tile/l15/rtl/Flist.l15',
  'design/chip/tile/common/rtl/Flist.clib_common',
  'design/chip/tile/dynamic_node/rtl/Flist.dynamic_node',
  'design/chip/tile/l2/rtl/Flist.l2',
  'design/chipset/rtl/Flist.chipset',
  'verif/env/manycore/manycore.flist',
  'verif/env/common/fake_mem_ctrl.flist',
];

function coreFlists(design: Pick<Design, 'core' | 'genericCore'>): string[] {
  switch (design.core) {
    case 'pico':
      return ['design/chip/tile/pico/rtl/Flist.pico'];
    case 'ariane':
      return ['design/chip/tile/ariane/Flist.ariane', 'design/chipset/rv64_platform/Flist.rv64_platform'];
    case 'sparc':
      return ['design/chip/tile/sparc/rtl/Flist.sparc_top', 'design/chip/tile/fpu/rtl/Flist.fpu'];
    case 'generic':
      return [`design/chip/tile/generic/${design.genericCore}/Flist.${design.genericCore}`];
  }
}

/** Ariane's build also compiles the rv64 platform's device tree and boot ROMs first. */
function bootromLines(design: Pick<Design, 'core' | 'xTiles' | 'yTiles'>, dvRoot: string): string[] {
  if (design.core !== 'ariane') return [];
  const tiles = tileCount(design);
  return [
    'compiling rv64 DTS and bootroms...',
    `python3 ${dvRoot}/tools/bin/riscvlib.py`,
    'dtc -I dts rv64_platform.dts -O dtb -o rv64_platform.dtb',
    'riscv64-unknown-elf-gcc -Tlinker.ld bootrom.S -nostdlib -static -Wl,--no-gc-sections -o bootrom.elf',
    `MAX_HARTS = ${tiles}`,
    'LD    >= bootrom_linux.elf',
    'PYTHON >= bootrom_linux.sv',
    'zero stage bootloader has been compiled!',
    'done',
    `generating PLIC for rv64 platform with ${2 * tiles} targets and 2 sources...`,
    'done',
  ];
}

export function vltBuild(
  inv: Invocation,
  requested: Omit<Design, 'finishMaskBits' | 'coreInstantiated' | 'defect'>,
): void {
  const { out, dvRoot, modelPath, settings } = inv;
  const pace = (seconds: number) => sleepSeconds(seconds * settings.speed);
  out.line(`sims: creating model directory ${modelPath}`);
  mkdirSync(join(modelPath, 'lib'), { recursive: true });
  if (inv.opts.flags.has('clean')) out.line('sims: cleaning up build directory');

  const flist = [...FLISTS_COMMON, ...coreFlists(requested)].map((f) => `${dvRoot}/${f}`);
  writeFileSync(join(modelPath, 'flist'), flist.join('\n') + '\n');
  writeFileSync(join(modelPath, 'config.v'), requested.defines.map((d) => `\`define ${d}`).join('\n') + '\n');
  copyFileSync(join(modelPath, 'flist'), join(inv.cwd, 'flist'));
  out.lines(flist);
  out.lines(bootromLines(requested, dvRoot));
  out.line('sims: LM_LICENSE_FILE : none');
  out.line('sims: Building rtl model');
  out.line(`sims: ${verilatorCommand(inv, requested)}`);

  const full = buildSeconds({ ...requested, finishMaskBits: 32, coreInstantiated: true });
  const bad = invalidOption(requested.buildArgs);
  if (bad) {
    out.line(`%Error: Invalid option: ${bad}`);
    pace(1);
    throw die('failed building model', DIE_LINES.buildVerilator);
  }

  const source = analyseSources(inv.pitonRoot, requested.core, requested.genericCore);
  const design: Design = {
    ...requested,
    finishMaskBits: source.finishMaskBits,
    coreInstantiated: source.coreInstantiated,
    ...(source.defect ? { defect: source.defect } : {}),
  };
  const warningLines = [
    ...warnings(design, dvRoot),
    ...source.warnings.flatMap((w) => verilatorWarning(w, 'PINMISSING')),
  ];
  const errors = elaborationErrors(design, dvRoot, source.errors);
  if (errors.length) {
    out.lines(warningLines.slice(0, Math.floor(warningLines.length / 3)));
    const blocks = errors.filter((l) => l.startsWith('%Error'));
    out.lines(limitErrors(errors, 50));
    out.line(exitLine(blocks.length));
    pace(full * FAILURE_POINT.elaboration);
    throw die('failed building model', DIE_LINES.buildVerilator);
  }
  if (!requested.buildArgs.some((a) => a.includes('timing'))) {
    out.lines(warningLines);
    out.lines(timingError(dvRoot));
    out.line(exitLine(1));
    pace(full * FAILURE_POINT.timing);
    throw die('failed building model', DIE_LINES.buildVerilator);
  }

  out.lines(warningLines);
  pace(full * 0.4);
  const objDir = join(modelPath, 'obj_dir');
  out.line(`sims: make -C ${objDir} -f Vcmp_top.mk Vcmp_top`);
  if (drawFlake(settings, inv.modelDir)) {
    // The host ran out of memory under the C++ compiler: nothing about the design is wrong.
    pace(full * 0.3);
    out.lines([
      'g++: fatal error: Killed signal terminated program cc1plus',
      'compilation terminated.',
      `make: *** [${objDir}/Vcmp_top.mk:68: Vcmp_top__ALL.a] Error 1`,
    ]);
    throw die('failed building model', DIE_LINES.buildMake);
  }
  pace(full * 0.6);
  rmSync(objDir, { recursive: true, force: true });
  mkdirSync(objDir, { recursive: true });
  writeFileSync(join(objDir, DESIGN_FILE), JSON.stringify(design, null, 2) + '\n');
  const binary = join(objDir, 'Vcmp_top');
  writeFileSync(
    binary,
    '#!/bin/sh\n# Built by the mace offline model of OpenPiton: the design is in mace_offline_design.json.\n' +
      'echo "offline model binary: run it with sims -vlt_run" >&2\nexit 1\n',
  );
  chmodSync(binary, 0o755);
  out.lines([
    'g++    b_ary.o bw_lib.o cpx.o iob.o iob_main.o pcx.o my_top.o verilated.o verilated_dpi.o verilated_threads.o Vcmp_top__ALL.a    -pthread -lpthread -latomic   -o Vcmp_top',
    'rm Vcmp_top__ALL.verilator_deplist.tmp',
    `make: Leaving directory '${objDir}'`,
  ]);
}

/** Verilator's own error limit: it stops reporting after 50. */
function limitErrors(lines: readonly string[], limit: number): string[] {
  let count = 0;
  const out: string[] = [];
  for (const line of lines) {
    if (line.startsWith('%Error') && ++count > limit) break;
    out.push(line);
  }
  return out;
}

function verilatorCommand(inv: Invocation, design: Pick<Design, 'defines' | 'buildArgs'>): string {
  const { dvRoot, modelPath } = inv;
  const pli = ['b_ary.c', 'bw_lib.c', 'iob_main.cc', 'iob.cc', 'cpx.cc', 'pcx.cc'].map(
    (f) => `${dvRoot}/tools/pli/iop/${f}`,
  );
  return [
    'verilator -cc -exe',
    `${dvRoot}/tools/verilator/my_top.cpp`,
    ...pli,
    '--top-module cmp_top -Wno-fatal -Wno-BLKANDNBLK -Wno-TIMESCALEMOD -DPITON_DPI --unroll-count 256',
    `-CFLAGS -DVERILATOR -CFLAGS -DPITON_DPI -CFLAGS -lstdc++ -CFLAGS -I${dvRoot}/tools/pli/iop -CFLAGS -I${dvRoot}/tools/verilator`,
    ...design.defines.map((d) => `+define+${d}`),
    ...design.buildArgs,
    `-f ${modelPath}/flist -Mdir ${modelPath}/obj_dir`,
  ].join(' ');
}
