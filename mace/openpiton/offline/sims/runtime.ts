/**
 * The model sims' process state: its environment, the checkout's model settings, output that goes to
 * stdout and sims.log line by line (so a killed run leaves what it printed), dying the way sims dies,
 * and the pacing that replays real durations at the speed factor.
 */
import { closeSync, fstatSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { sigdieLine, statusLog } from './formats.ts';

/** Settings an offline checkout was created with; the environment overrides them per call. */
export interface ModelSettings {
  /** Real seconds are multiplied by this (1 replays real time, 0 runs instantly). */
  readonly speed: number;
  /** Probability that a build or run fails for no configuration reason. */
  readonly flakeRate: number;
  readonly seed: number;
}

export const DEFAULT_SETTINGS: ModelSettings = { speed: 0.01, flakeRate: 0, seed: 0 };

/** File (git-ignored, beside the model sims) holding a checkout's settings. */
export const SETTINGS_FILE = 'mace_offline_settings.json';

const ENV_OVERRIDES: Record<keyof ModelSettings, string> = {
  speed: 'MACE_OFFLINE_SPEED',
  flakeRate: 'MACE_OFFLINE_FLAKE_RATE',
  seed: 'MACE_OFFLINE_SEED',
};

export function loadSettings(toolsBin: string, env: NodeJS.ProcessEnv): ModelSettings {
  let stored: Partial<ModelSettings> = {};
  try {
    stored = JSON.parse(readFileSync(join(toolsBin, SETTINGS_FILE), 'utf8')) as Partial<ModelSettings>;
  } catch {
    // A checkout without a settings file runs with the defaults.
  }
  const out = { ...DEFAULT_SETTINGS, ...stored } as Record<keyof ModelSettings, number>;
  for (const [key, name] of Object.entries(ENV_OVERRIDES) as [keyof ModelSettings, string][]) {
    const value = env[name];
    if (value !== undefined && value !== '' && Number.isFinite(Number(value))) out[key] = Number(value);
  }
  return out;
}

/** Thrown to end sims the way a Perl `die` does (caught in main). */
export class SimsDie extends Error {
  constructor(
    readonly dieMessage: string,
    readonly perlLine: number,
  ) {
    super(dieMessage);
  }
}

export class Output {
  private log: number | undefined;
  constructor(simsLog: string | undefined) {
    if (simsLog) this.log = openSync(simsLog, 'w');
  }
  line(text: string): void {
    const bytes = `${text}\n`;
    writeSync(1, bytes);
    if (this.log !== undefined) writeSync(this.log, bytes);
  }
  lines(texts: readonly string[]): void {
    if (texts.length) {
      const bytes = texts.join('\n') + '\n';
      writeSync(1, bytes);
      if (this.log !== undefined) writeSync(this.log, bytes);
    }
  }
  close(): void {
    if (this.log !== undefined) closeSync(this.log);
    this.log = undefined;
  }
}

/** Sleep without returning to the event loop: the model is a plain synchronous program. */
export function sleepSeconds(seconds: number): void {
  if (seconds <= 0) return;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.round(seconds * 1000));
}

/**
 * Whether this call is one of the seeded flakes. Calls are numbered per checkout by appending a
 * byte to a counter file (appends are atomic, so concurrent calls get distinct numbers); the draw is
 * a hash of the seed and the number, so a seed gives the same sequence of flakes every time.
 */
export function drawFlake(settings: ModelSettings, modelDir: string): boolean {
  if (settings.flakeRate <= 0) return false;
  const fd = openSync(join(modelDir, '.mace_offline_calls'), 'a');
  try {
    writeSync(fd, '.');
    const call = fstatSync(fd).size;
    const digest = createHash('sha256').update(`${settings.seed}:${call}`).digest();
    return digest.readUInt32BE(0) / 0x1_0000_0000 < settings.flakeRate;
  } finally {
    closeSync(fd);
  }
}

/** What sims' SIGDIE handler does: print the die line, write status.log with `regreport -1`, exit 1. */
export function reportDie(out: Output, die: SimsDie, dvRoot: string, cwd: string): void {
  out.line(sigdieLine(die.dieMessage, dvRoot, die.perlLine));
  out.line('');
  writeFileSync(join(cwd, 'status.log'), statusLog(cwd, 'Unknown'));
}

export const die = (message: string, line: number): SimsDie => new SimsDie(`DIE. ${message}`, line);
