/**
 * Seeded faults: one known-bad change to a design, applied to the first plan of a loop run
 * (seeded_<fault>: can the loop recover?) or to the expert configuration (faultcheck_<fault>: does
 * the fault really break the design? A fault is trusted only while its checks fail everywhere it
 * applies). Each fault changes only config and workload tasks; unit_test and rtl tasks keep theirs.
 */
import type { Core, CoreKind } from '../../mace/openpiton/geometry.ts';
import type { Mesh, Task } from '../../mace/spec.ts';

export interface SeededFault {
  readonly name: string;
  /** What the change does and the failure it causes, for help texts and reports. */
  readonly description: string;
  readonly cores: readonly Core[];
  /** The fault applies only to meshes with at least this many rows. */
  readonly minRows: number;
  /** The change, on a task of kind config or workload. */
  readonly change: (task: Task) => Task;
}

const BIST = 'CONFIG_DISABLE_BIST_CLEAR';

export const SEEDED_FAULTS: readonly SeededFault[] = [
  {
    name: 'fpga_synth',
    description: 'adds PITON_FPGA_SYNTH: the Verilator build fails with %Error-PINNOTFOUND',
    cores: ['ariane', 'pico'],
    minRows: 1,
    change: (task) => ({ ...task, config_rtl: [...new Set([...(task.config_rtl ?? []), 'PITON_FPGA_SYNTH'])].sort() }),
  },
  {
    name: 'drop_bist',
    description: `removes ${BIST}: PicoRV32 builds, and every simulation times out`,
    cores: ['pico'],
    minRows: 1,
    change: (task) => {
      const kept = (task.config_rtl ?? []).filter((d) => d !== BIST);
      return { ...task, config_rtl: kept.length ? kept : null };
    },
  },
  {
    name: 'crossbar',
    description: 'switches to xbar_config: with two or more rows the build fails with duplicate pin connections',
    cores: ['ariane', 'pico'],
    minRows: 2,
    change: (task) => ({ ...task, network: 'xbar_config' }),
  },
  {
    name: 'l1d_eight_way',
    description: "sets an 8-way L1D: Ariane's way rule refuses it before any build",
    cores: ['ariane'],
    minRows: 1,
    change: (task) => ({ ...task, caches: { ...(task.caches ?? {}), l1d: [8192, 8] } }),
  },
];

/** Whether a fault can be seeded into a design of this core and mesh. */
export function faultApplies(fault: SeededFault, core: CoreKind, mesh: Mesh): boolean {
  return (fault.cores as readonly string[]).includes(core) && mesh[1] >= fault.minRows;
}

/** The task with the fault, when its kind is one a fault changes; otherwise the task as it is. */
export function breakTask(fault: SeededFault, task: Task): Task {
  return task.kind === 'config' || task.kind === 'workload' ? fault.change(task) : task;
}

/** A plan hook that breaks every task of iteration 0 and leaves later plans alone. */
export function firstPlanBreaker(fault: SeededFault): (iteration: number, tasks: Task[]) => Task[] {
  return (iteration, tasks) => (iteration === 0 ? tasks.map((task) => breakTask(fault, task)) : tasks);
}
