/**
 * What a simulation of a built design does: which tiles reach their good or bad trap and when, and
 * which of the monitor's verdicts comes first. Each rule cites its evidence in the README.
 */
import type { Program } from './catalog.ts';
import { DEFAULT_MAX_CYCLE, eventTime, maxCycleTime, THREADS_PER_TILE, timeoutTime } from './constants.ts';
import { tileCount, type Design } from './design.ts';
import { SHARED_DATA_FAIL_FRACTION, tileCycles } from './timing.ts';

export type Verdict = 'pass' | 'fail' | 'timeout' | 'maxcycles';

/** One tile's hart: it reaches a trap at a cycle, or stops retiring (stalls) there, or is parked. */
export type HartFate =
  | { readonly kind: 'good' | 'bad'; readonly cycles: number }
  | { readonly kind: 'stall'; readonly cycles: number; readonly why: string }
  | { readonly kind: 'parked' };

export interface RunRequest {
  /** `-finish_mask` as given (hex, one digit per tile); null when sims passes none (only tile 0 is checked). */
  readonly finishMask: string | null;
  readonly rtlTimeout: number;
  readonly maxCycle: number | null;
}

export interface RunOutcome {
  readonly verdict: Verdict;
  /** Simulated time of the verdict line. */
  readonly time: number;
  /** Cycles simulated before the verdict (what the run's wall time is paid for). */
  readonly cycles: number;
  readonly fates: readonly HartFate[];
  /** Tiles whose good trap was displayed before the verdict, in the order they hit it. */
  readonly goodTraps: readonly number[];
  /** The tile whose bad trap ended the run. */
  readonly badTrapTile: number | null;
  /** The mask has bits the monitor's register cannot hold, so the run cannot pass. */
  readonly maskTruncated: boolean;
}

/** Fraction of its run a hart gets through before a hang stops it (2-way L1.5: 474 of 8366 PC lines). */
const HANG_FRACTION = 474 / 8366;

/** Fraction of its run a hart gets through before a broken design makes a test fail. */
const DEFECT_FAIL_FRACTION = 0.3;

/** The tile that takes the bad trap when every hart runs a single-hart test on shared data (spc(2) on 2x2). */
const sharedDataVictim = (tiles: number): number => Math.min(2, tiles - 1);

/** The fate of every tile's hart when this program runs on this design. */
export function hartFates(program: Program, design: Design): HartFate[] {
  const tiles = tileCount(design);
  const { finish, work, cache } = tileCycles(program, design);
  return finish.map((cycles, tile): HartFate => {
    if (design.core === 'sparc') return { kind: 'stall', cycles: 0, why: 'OpenSPARC T1 stalls under Verilator 5.006' };
    if (!design.coreInstantiated)
      return { kind: 'stall', cycles: 0, why: 'the Generic Tile wrapper instantiates no core' };
    if (design.core === 'pico' && !design.defines.includes('CONFIG_DISABLE_BIST_CLEAR'))
      return {
        kind: 'stall',
        cycles: 0,
        why: 'the BRAM BIST clear erases the first writes: fetches once, then stalls',
      };
    if (design.defect?.effect === 'hang')
      return { kind: 'stall', cycles: cycles * HANG_FRACTION, why: `the design change at ${design.defect.file}` };
    if (design.caches.l15[1] < 4 && (program.memory?.l15Lines ?? 0) > 0)
      return { kind: 'stall', cycles: cycles * HANG_FRACTION, why: 'the L1.5 index math assumes 4 ways' };
    if (program.kind === 'riscv_test' && tile > 0) return { kind: 'parked' };
    if (design.defect?.effect === 'bad_trap') return { kind: 'bad', cycles: cycles * DEFECT_FAIL_FRACTION };
    if (program.kind === 'amo' && tiles > 1 && tile === sharedDataVictim(tiles))
      return { kind: 'bad', cycles: SHARED_DATA_FAIL_FRACTION * work + cache };
    return { kind: 'good', cycles };
  });
}

/** The threads a hex finish mask requires (bit 4·tile + thread), and whether it overflows the register. */
export function maskThreads(mask: string | null, registerBits: number): { threads: number[]; truncated: boolean } {
  // The testbench reads the mask with %h; text that is not hex reads as 0.
  const text = mask || '1';
  const value = /^[0-9a-fA-F]+$/.test(text) ? BigInt(`0x${text}`) : 0n;
  const threads: number[] = [];
  for (let bit = 0; value >> BigInt(bit) > 0n; bit++) if ((value >> BigInt(bit)) & 1n) threads.push(bit);
  return { threads, truncated: threads.some((bit) => bit >= registerBits) };
}

/**
 * The monitor's verdict: a bad trap on any tile fails the run at once; the run passes when every
 * masked thread has hit its good trap; PicoRV32 and Ariane leave threads 1-3 of each tile slot
 * active without ever retiring, so the monitor times out `rtl_timeout` cycles in; and the testbench
 * stops at its cycle cap. The earliest of these is the verdict.
 */
export function simulate(program: Program, design: Design, request: RunRequest): RunOutcome {
  const fates = hartFates(program, design);
  const { threads, truncated } = maskThreads(request.finishMask, design.finishMaskBits);
  const bad = trapsOf(fates, 'bad')[0];

  const candidates: Array<{ verdict: Verdict; time: number; cycles: number }> = [];
  if (bad) candidates.push({ verdict: 'fail', time: eventTime(bad.cycles), cycles: bad.cycles });
  const passCycles = truncated ? null : requiredFinish(threads, fates);
  if (passCycles !== null) candidates.push({ verdict: 'pass', time: eventTime(passCycles), cycles: passCycles });
  if (design.core !== 'sparc')
    candidates.push({ verdict: 'timeout', time: timeoutTime(request.rtlTimeout), cycles: request.rtlTimeout });
  const maxCycle = request.maxCycle ?? DEFAULT_MAX_CYCLE;
  candidates.push({ verdict: 'maxcycles', time: maxCycleTime(maxCycle), cycles: maxCycle });

  const first = candidates.reduce((best, c) => (c.time < best.time ? c : best));
  return {
    ...first,
    fates,
    goodTraps: trapsOf(fates, 'good')
      .filter((t) => eventTime(t.cycles) <= first.time)
      .map((t) => t.tile),
    badTrapTile: first.verdict === 'fail' && bad ? bad.tile : null,
    maskTruncated: truncated,
  };
}

/** The tiles whose hart reaches a trap of this kind, earliest first. */
function trapsOf(fates: readonly HartFate[], kind: 'good' | 'bad'): Array<{ tile: number; cycles: number }> {
  return fates
    .flatMap((fate, tile) => (fate.kind === kind ? [{ tile, cycles: fate.cycles }] : []))
    .sort((a, b) => a.cycles - b.cycles);
}

/**
 * When the last required thread hits its good trap, or null when one never will. The monitor
 * compares the mask only when a good trap is hit, so an empty mask passes at the first one.
 */
function requiredFinish(threads: readonly number[], fates: readonly HartFate[]): number | null {
  if (!threads.length) return trapsOf(fates, 'good')[0]?.cycles ?? null;
  let latest = 0;
  for (const bit of threads) {
    const fate = fates[Math.floor(bit / THREADS_PER_TILE)];
    // Every modelled core runs one hart per tile slot; threads 1-3 of a slot never trap.
    if (bit % THREADS_PER_TILE !== 0 || !fate || fate.kind !== 'good') return null;
    latest = Math.max(latest, fate.cycles);
  }
  return latest;
}
