/**
 * The run's clock: how much wall time is left, and the timeout each build and simulation gets (the
 * smaller of its default and the time left).
 */
import { DEFAULT_BUILD_TIMEOUT_S, DEFAULT_RUN_TIMEOUT_S } from './openpiton/artifacts.ts';

export class Deadline {
  constructor(
    /** Epoch ms when the budget runs out. */
    readonly at: number,
    private readonly now: () => number = Date.now,
  ) {}

  static after(seconds: number, now: () => number = Date.now): Deadline {
    return new Deadline(now() + seconds * 1000, now);
  }

  /** Seconds left, never negative. */
  leftS(): number {
    return Math.max(0, (this.at - this.now()) / 1000);
  }

  passed(): boolean {
    return this.now() >= this.at;
  }

  buildTimeoutS(): number {
    return Math.min(DEFAULT_BUILD_TIMEOUT_S, this.leftS());
  }

  runTimeoutS(): number {
    return Math.min(DEFAULT_RUN_TIMEOUT_S, this.leftS());
  }
}
