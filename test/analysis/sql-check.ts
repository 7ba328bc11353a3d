/**
 * The report's numbers recomputed straight from a results database with DuckDB SQL, written
 * independently of harness/analysis so each can catch the other's mistakes. Reusable on any
 * database (the quickstart reference database included): assertReportMatchesSql(path, analysis).
 */
import assert from 'node:assert/strict';
import type { Analysis } from '../../harness/analysis/analyse.ts';
import { median } from '../../harness/analysis/stats.ts';
import { Store } from '../../mace/store/store.ts';

interface SqlCell {
  task: string;
  method: string;
  runs: number;
  passed: number;
  time_to_pass: number | null;
  passed_time: number | null;
  passed_iqr: number | null;
  machine_s: number | null;
  builds: number | null;
  llm_calls: number | null;
  llm_usd: number | null;
}

const CELLS_SQL = `
WITH labelled AS (
  SELECT *, epoch(finished_at) - epoch(started_at) AS wall,
    CAST(json_extract(spec, '$.budget.max_wall_s') AS DOUBLE) AS budget,
    row_number() OVER (PARTITION BY task, method, repeat ORDER BY started_at DESC, run_id DESC) AS newest
  FROM runs WHERE task IS NOT NULL),
codesign AS (
  SELECT DISTINCT method FROM labelled l
  WHERE method LIKE 'codesign_%' OR EXISTS (SELECT 1 FROM evaluations e WHERE e.run_id = l.run_id)),
ceiling AS (SELECT task, max(greatest(coalesce(wall, 0), coalesce(budget, 0))) AS ceiling FROM labelled GROUP BY task),
per_run AS (
  SELECT l.task, l.method, l.status = 'passed' AS passed, l.wall,
    CASE WHEN l.status = 'passed' THEN l.wall ELSE greatest(l.wall, coalesce(l.budget, c.ceiling)) END AS ttp,
    coalesce((SELECT sum(wall_s) FROM tasks t WHERE t.run_id = l.run_id), 0)
      + coalesce((SELECT sum(wall_s) FROM probes p WHERE p.run_id = l.run_id), 0) AS machine_s,
    (SELECT count(*) FROM tasks t WHERE t.run_id = l.run_id) AS builds,
    (SELECT count(*) FROM llm_calls k WHERE k.run_id = l.run_id) AS llm_calls,
    CASE WHEN EXISTS (SELECT 1 FROM llm_calls k WHERE k.run_id = l.run_id)
      THEN (SELECT sum(usd) FROM llm_calls k WHERE k.run_id = l.run_id)
      ELSE coalesce((SELECT sum(usd) FROM iterations i WHERE i.run_id = l.run_id), 0) END AS llm_usd
  FROM labelled l JOIN ceiling c USING (task)
  WHERE l.newest = 1 AND l.status <> 'running' AND l.finished_at IS NOT NULL
    AND l.method NOT IN (SELECT method FROM codesign))
SELECT task, method, count(*)::INTEGER AS runs, count(*) FILTER (WHERE passed)::INTEGER AS passed,
  quantile_cont(ttp, 0.5) AS time_to_pass,
  quantile_cont(wall, 0.5) FILTER (WHERE passed) AS passed_time,
  CASE WHEN count(*) FILTER (WHERE passed) >= 2 THEN
    quantile_cont(wall, 0.75) FILTER (WHERE passed) - quantile_cont(wall, 0.25) FILTER (WHERE passed) END AS passed_iqr,
  quantile_cont(machine_s, 0.5) AS machine_s, quantile_cont(builds, 0.5) AS builds,
  quantile_cont(llm_calls, 0.5) AS llm_calls, quantile_cont(llm_usd, 0.5) AS llm_usd
FROM per_run GROUP BY ALL ORDER BY task, method`;

const REPLACED_SQL = `
SELECT count(*)::INTEGER AS replaced FROM (
  SELECT row_number() OVER (PARTITION BY task, method, repeat ORDER BY started_at DESC, run_id DESC) AS newest
  FROM runs WHERE task IS NOT NULL) WHERE newest > 1`;

function close(actual: number | null, expected: number | null, what: string, tolerance = 1e-9): void {
  if (expected === null || actual === null) {
    assert.equal(actual, expected, what);
    return;
  }
  assert.ok(
    Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)),
    `${what}: ${actual} vs ${expected}`,
  );
}

/** Assert that an analysis of the single database at `path` agrees with direct SQL on it. */
export async function assertReportMatchesSql(path: string, analysis: Analysis): Promise<void> {
  const store = await Store.openForRead(path);
  const [cells, replaced] = await store.read(async (q) => [
    await q.all<SqlCell>(CELLS_SQL),
    (await q.one<{ replaced: number }>(REPLACED_SQL))!.replaced,
  ]);
  assert.equal(analysis.counts.replaced, replaced, 'replaced runs');
  assert.deepEqual(
    analysis.cells.map((c) => `${c.task}/${c.method}`),
    cells.map((c) => `${c.task}/${c.method}`),
    'the same task × method cells',
  );
  for (const [i, sql] of cells.entries()) {
    const cell = analysis.cells[i]!;
    const what = `${sql.task}/${sql.method}`;
    assert.equal(cell.runs, sql.runs, `${what} runs`);
    assert.equal(cell.passed, sql.passed, `${what} passed`);
    close(cell.time_to_pass.median_s, sql.time_to_pass, `${what} time to pass`);
    close(cell.passed_time_s, sql.passed_time, `${what} passed time`);
    close(cell.passed_time_iqr_s, sql.passed_iqr, `${what} IQR`);
    close(cell.medians.machine_s, sql.machine_s, `${what} machine_s`);
    close(cell.medians.builds, sql.builds, `${what} builds`);
    close(cell.medians.llm_calls, sql.llm_calls, `${what} llm calls`);
    close(cell.medians.llm_usd, sql.llm_usd, `${what} llm usd`);
    close(cell.medians.compute_usd, (sql.machine_s! / 3600) * analysis.settings.hourly_usd, `${what} compute usd`);
  }
  const reference = analysis.settings.reference;
  for (const comparison of analysis.comparisons) {
    const diffs = cells
      .filter((c) => c.method === comparison.method)
      .flatMap((c) => {
        const ref = cells.find((r) => r.task === c.task && r.method === reference);
        return ref ? [c.time_to_pass! - ref.time_to_pass!] : [];
      });
    assert.equal(comparison.tasks, diffs.length, `${comparison.method} paired tasks`);
    // The library rounds each difference to DIFFERENCE_PRECISION_S (1e-6 s) before taking the median.
    close(comparison.time_difference_s.median, median(diffs), `${comparison.method} median difference`, 1e-6);
  }
}
