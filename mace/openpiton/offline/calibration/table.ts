/**
 * The calibration table: real OpenPiton builds and runs (Verilator 5.006, this kind of machine),
 * one row per configuration and diag, from ../shared/openpiton-calibration.csv and the logs beside
 * it (the `note` column names the source). The model is fitted to these rows and `mace offline
 * calibrate` replays them. Add a row for every new real measurement.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WORKLOADS_DIR } from '../../workloads.ts';
import type { CacheGeometry, CacheMap, CacheName, Core, Network } from '../../geometry.ts';

/** Where a row's diag comes from when sims needs an extra diag directory. */
export type DiagRoot = 'calibration' | 'workloads' | '';

export type ExpectedVerdict = 'pass' | 'fail' | 'timeout' | 'maxcycles' | 'killed';

export interface CalibrationRun {
  readonly diag: string;
  readonly precompiled: boolean;
  /**
   * The extra diag directory passed as -asm_diag_root (`asm_diag_root` column): the calibration diags
   * (`calibration`, calibration/diags) or the project's gate programs (`workloads`); '' for none.
   */
  readonly diagRoot: DiagRoot;
  /** '' when the real run passed no -finish_mask (only tile 0 is checked). */
  readonly finishMask: string;
  readonly rtlTimeout?: number;
  readonly maxCycle?: number;
  /** The real run was stopped after this many seconds. */
  readonly killAfterS?: number;
  readonly seconds?: number;
  readonly verdict: ExpectedVerdict;
  /** The verdict line's simulated time. */
  readonly simTime?: number;
  readonly statusWord: string;
}

export interface CalibrationRow {
  readonly id: string;
  readonly core: Core;
  readonly xTiles: number;
  readonly yTiles: number;
  readonly network: Network;
  readonly configRtl: readonly string[];
  readonly caches: CacheMap;
  /** Whether the real build succeeded (undefined: the row reused a model built earlier). */
  readonly buildOk?: boolean;
  readonly buildSeconds?: number;
  /** The adapter's failure tag for the real build output (`verilog_error`), '' when it built. */
  readonly buildFailure: string;
  readonly firstError: string;
  readonly run?: CalibrationRun;
  readonly note: string;
}

export const CALIBRATION_CSV = fileURLToPath(new URL('./openpiton-calibration.csv', import.meta.url));
export const CALIBRATION_DIAGS = fileURLToPath(new URL('./diags', import.meta.url));

/** The directory each `asm_diag_root` value names. */
export const DIAG_ROOTS: Readonly<Record<Exclude<DiagRoot, ''>, string>> = {
  calibration: CALIBRATION_DIAGS,
  workloads: WORKLOADS_DIR,
};

function diagRoot(cell: string, id: string): DiagRoot {
  if (cell === '' || cell in DIAG_ROOTS) return cell as DiagRoot;
  throw new Error(
    `calibration row ${id}: asm_diag_root must be empty, calibration or workloads, got ${JSON.stringify(cell)}`,
  );
}

/** RFC 4180 fields: commas inside double quotes, doubled quotes inside them. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(field), (field = ''));
    else if (c === '\n') (row.push(field), rows.push(row), (row = []), (field = ''));
    else if (c !== '\r') field += c;
  }
  if (field || row.length) (row.push(field), rows.push(row));
  return rows;
}

const num = (s: string | undefined): number | undefined => (s === undefined || s === '' ? undefined : Number(s));

function geometry(cell: string, column: string, id: string): CacheGeometry {
  const m = /^(\d+),(\d+)$/.exec(cell);
  if (!m) throw new Error(`calibration row ${id}: column ${column} must be "size,assoc", got ${JSON.stringify(cell)}`);
  return [Number(m[1]), Number(m[2])];
}

/** Read the table (the shipped one by default). */
export function loadCalibrationTable(path = CALIBRATION_CSV): CalibrationRow[] {
  const [header, ...lines] = parseCsv(readFileSync(path, 'utf8')).filter((r) => r.some((f) => f !== ''));
  if (!header) throw new Error(`${path}: empty calibration table`);
  return lines.map((cells, index) => {
    const get = (name: string) => {
      const at = header.indexOf(name);
      if (at < 0) throw new Error(`${path}: no column ${name}`);
      return cells[at] ?? '';
    };
    const id = get('id') || `row ${index + 2}`;
    const caches = Object.fromEntries(
      (['l15', 'l1d', 'l1i', 'l2'] as CacheName[]).map((c) => [c, geometry(get(c), c, id)]),
    ) as unknown as CacheMap;
    const buildRc = num(get('build_rc'));
    const diag = get('diag');
    const verdict = get('verdict') as ExpectedVerdict;
    return {
      id,
      core: get('core') as Core,
      xTiles: Number(get('x')),
      yTiles: Number(get('y')),
      network: get('network') as Network,
      configRtl: get('config_rtl').split(';').filter(Boolean),
      caches,
      ...(buildRc === undefined ? {} : { buildOk: buildRc === 0 }),
      ...(num(get('build_s')) === undefined ? {} : { buildSeconds: num(get('build_s'))! }),
      buildFailure: get('build_failure'),
      firstError: get('first_error'),
      ...(diag
        ? {
            run: {
              diag,
              precompiled: get('precompiled') === '1',
              diagRoot: diagRoot(get('asm_diag_root'), id),
              finishMask: get('finish_mask'),
              ...(num(get('rtl_timeout')) === undefined ? {} : { rtlTimeout: num(get('rtl_timeout'))! }),
              ...(num(get('max_cycle')) === undefined ? {} : { maxCycle: num(get('max_cycle'))! }),
              ...(num(get('kill_s')) === undefined ? {} : { killAfterS: num(get('kill_s'))! }),
              ...(num(get('run_s')) === undefined ? {} : { seconds: num(get('run_s'))! }),
              verdict,
              ...(num(get('verdict_time')) === undefined ? {} : { simTime: num(get('verdict_time'))! }),
              statusWord: get('status_word'),
            },
          }
        : {}),
      note: get('note'),
    };
  });
}
