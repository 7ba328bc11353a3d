import { DuckDBInstance } from '@duckdb/node-api';
import { runRowsSql } from './harness/analysis/runs.ts';
const inst = await DuckDBInstance.create(process.argv[2]!, { access_mode: 'READ_ONLY' });
const con = await inst.connect();
for (let k = 0; k < 3; k++) {
  let t = performance.now();
  const r = await con.runAndReadAll(runRowsSql('duckdb'));
  const t1 = performance.now();
  r.getColumnsObjectJS();
  console.log('sql', (t1 - t).toFixed(0), 'convert', (performance.now() - t1).toFixed(0));
  t = performance.now();
  await con.runAndReadAll(`SELECT count(*) FROM (${runRowsSql('duckdb')})`);
  console.log('sql only count', (performance.now() - t).toFixed(0));
}
