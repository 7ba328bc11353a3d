/**
 * What the jobs left should cost, from the runs the database already holds of the same task and
 * method (their medians, through the analysis library's run rows): wall-clock seconds per job,
 * LLM dollars, and machine time priced at the hourly rate.
 */
import { existsSync } from 'node:fs';
import { counted, loadRuns, DEFAULT_HOURLY_USD } from '../analysis/runs.ts';
import { duckdbSource } from '../analysis/source.ts';
import { median } from '../analysis/stats.ts';

export interface Estimate {
  /** Jobs with earlier runs to go by, and without. */
  readonly known: number;
  readonly unknown: number;
  /** Sum over the known jobs of their median wall-clock seconds. */
  readonly jobS: number;
  readonly llmUsd: number;
  readonly computeUsd: number;
}

export async function estimateJobs(
  db: string,
  jobs: readonly { readonly task: { readonly id: string }; readonly method: { readonly name: string } }[],
  hourlyUsd = DEFAULT_HOURLY_USD,
): Promise<Estimate> {
  const rows = existsSync(db) ? (await loadRuns([await duckdbSource(db)], { hourlyUsd })).rows.filter(counted) : [];
  const cells = new Map<string, { wall: number[]; llm: number[]; compute: number[] }>();
  for (const row of rows) {
    const cell = cells.get(`${row.task}\0${row.method}`) ?? { wall: [], llm: [], compute: [] };
    cell.wall.push(row.wall_s!);
    cell.llm.push(row.llm_usd);
    cell.compute.push(row.compute_usd);
    cells.set(`${row.task}\0${row.method}`, cell);
  }
  let known = 0;
  let jobS = 0;
  let llmUsd = 0;
  let computeUsd = 0;
  for (const job of jobs) {
    const cell = cells.get(`${job.task.id}\0${job.method.name}`);
    if (!cell) continue;
    known++;
    jobS += median(cell.wall) ?? 0;
    llmUsd += median(cell.llm) ?? 0;
    computeUsd += median(cell.compute) ?? 0;
  }
  return { known, unknown: jobs.length - known, jobS, llmUsd, computeUsd };
}
