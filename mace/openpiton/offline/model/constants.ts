/**
 * Fixed facts of the modelled OpenPiton and its testbench, read off the real logs in
 * ../shared/openpiton-logs (see the model's README for the evidence behind each).
 */

/** Simulated time units per core clock cycle: `max cycles = 6000` ends at 3000250 (6000 × 500 + 250). */
export const TIME_PER_CYCLE = 500;

/** Trap and timeout events are stamped 157750 after cycle 0 (reset and boot of the testbench). */
export const EVENT_OFFSET = 157_750;

/** The max-cycles event is stamped 250 after its cycle count. */
export const MAX_CYCLE_OFFSET = 250;

/** manycore.config's `-rtl_timeout=50000`: the monitor's +TIMEOUT when the run gives none. */
export const DEFAULT_RTL_TIMEOUT = 50_000;

/** The testbench's own cycle cap under Verilator when sims passes no +max_cycle (the T1 row ends here). */
export const DEFAULT_MAX_CYCLE = 1_500_000;

/** Simulated time of an event `cycles` core cycles into the run. */
export const eventTime = (cycles: number): number => EVENT_OFFSET + TIME_PER_CYCLE * Math.round(cycles);

/** Cycle count of an event at simulated time `time` (the inverse of eventTime). */
export const eventCycles = (time: number): number => (time - EVENT_OFFSET) / TIME_PER_CYCLE;

/** When the monitor's timeout fires for a thread that never retires an instruction. */
export const timeoutTime = (rtlTimeout: number): number => EVENT_OFFSET + TIME_PER_CYCLE * rtlTimeout;

/** When the testbench stops at its cycle cap. */
export const maxCycleTime = (maxCycle: number): number => MAX_CYCLE_OFFSET + TIME_PER_CYCLE * maxCycle;

/** What the model's `verilator --version` prints: the calibrated Verilator, marked as a model. */
export const VERILATOR_VERSION_TEXT = 'Verilator 5.006 2023-01-22 rev (mace offline model of OpenPiton)';

/** sims' own version line (`sims: version 2.0`). */
export const SIMS_VERSION = '2.0';

/** Threads per tile slot in the monitor's masks: bit 4·tile + thread. */
export const THREADS_PER_TILE = 4;
