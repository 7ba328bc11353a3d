/**
 * What the LLM layer itself costs per call, apart from the model: each network backend against a
 * local fake server that answers at once, called bare, through RunLlm without a store, and through
 * RunLlm recording every call into a DuckDB file.
 *
 *   node --import tsx bench/llm-calls.ts [calls]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunLlm } from '../mace/llm/recorder.ts';
import { closeAllStores, Store } from '../mace/store/store.ts';
import { startFakeServer } from '../test/llm/fake-http.ts';
import { openaiKit, vertexKit } from '../test/llm/kits.ts';

const calls = Number(process.argv[2] ?? 200);
const dir = mkdtempSync(join(tmpdir(), 'mace-bench-'));

async function msPerCall(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 10; i++) await call();
  const started = performance.now();
  for (let i = 0; i < calls; i++) await call();
  return (performance.now() - started) / calls;
}

console.log(`${calls} sequential calls each, after 10 warm-up calls; ms per call`);
console.log('backend  bare    RunLlm  RunLlm+DuckDB');
for (const kit of [openaiKit, vertexKit]) {
  const server = await startFakeServer([kit.api.text('pong', { input: 20, output: 2, thinking: 8 })]);
  const backend = await kit.make(server.url);
  const store = await Store.open(join(dir, `${kit.name}.duckdb`));
  const bare = await msPerCall(() => backend.call({ phase: 'ping', prompt: 'ping' }));
  const memory = new RunLlm(backend, { runId: 'mem' });
  const inMemory = await msPerCall(() => memory.call({ phase: 'task', prompt: 'ping', iteration: 0, taskId: 't' }));
  const recorded = new RunLlm(backend, { runId: 'db', store });
  const withStore = await msPerCall(() => recorded.call({ phase: 'task', prompt: 'ping', iteration: 0, taskId: 't' }));
  console.log(
    `${kit.name.padEnd(8)} ${bare.toFixed(2).padEnd(7)} ${inMemory.toFixed(2).padEnd(7)} ${withStore.toFixed(2)}`,
  );
  await server.close();
}
await closeAllStores();
rmSync(dir, { recursive: true, force: true });
