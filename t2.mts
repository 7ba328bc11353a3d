import { Store } from './mace/store/store.ts';
import { query } from './mace/store/readers.ts';
const s = await Store.openForRead('/tmp/dd/loop.duckdb');
console.log(await query(s, "select task_id, build_s, run_s, programs, build_reused from tasks"));
console.log(await query(s, "select phase, wall_s from llm_calls"));
console.log(await query(s, "select tag, kind, recorded_at from step_results order by recorded_at"));
