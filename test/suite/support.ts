/**
 * Builders for suite tests: suite text from a few fields (offline checkouts at speed 0 with no login
 * shell, the scripted agent), written into a temporary folder, and the runs a database recorded.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Store } from '../../mace/store/store.ts';
import { tempDir } from '../helpers.ts';

export const PICO_OBJECTIVE =
  'Verify the addi.S gate workload passes on a 2x2 pico mesh in a single task. That task needs the CONFIG_DISABLE_BIST_CLEAR RTL define.';

export const PICO_TASK = `
  - id: pico-2x2-addi
    core: pico
    mesh: [2, 2]
    workloads: [addi.S]
    objective: ${PICO_OBJECTIVE}
    verified: true
    expert: { config_rtl: [CONFIG_DISABLE_BIST_CLEAR] }`;

export const ARIANE_TASK = `
  - id: ariane-2x2-barrier
    core: ariane
    mesh: [2, 2]
    workloads: [barrier_atomic_rv64.S]
    objective: Verify the barrier_atomic_rv64.S gate workload passes on a 2x2 ariane mesh.
    verified: true`;

/** The file the pico source fault changes, and the line it breaks. */
export const FAULTED_FILE = 'piton/design/chip/tile/pico/rtl/picorv32.v';
export const FAULTED_LINE = 'assign mem_xfer = (mem_valid && mem_ready) ||';

/** A pico task whose checkouts carry a planted fault in the memory handshake (the build fails). */
export const PICO_RTL_FAULT_TASK = `
  - id: pico-2x2-rtlfault
    core: pico
    mesh: [2, 2]
    workloads: [addi.S]
    objective: ${PICO_OBJECTIVE}
    verified: true
    expert: { config_rtl: [CONFIG_DISABLE_BIST_CLEAR] }
    source_fault:
      - path: ${FAULTED_FILE}
        old: "${FAULTED_LINE}"
        new: "assign mem_xfer = (mem_valid && mem_readyx) ||"`;

export interface SuiteText {
  readonly name?: string;
  readonly methods: string;
  readonly tasks: string;
  readonly offline?: number;
  readonly perJob?: number;
  readonly repeats?: number;
  readonly seed?: number;
  readonly speed?: number;
  readonly extra?: string;
}

/** Suite YAML: offline checkouts (speed 0, no login shell), the scripted agent, 3 iterations. */
export function suiteText(s: SuiteText): string {
  return `version: 1
name: ${s.name ?? 'test'}
study:
  methods: ${s.methods}
  repeats: ${s.repeats ?? 1}
  seed: ${s.seed ?? 0}
  llm: { backend: scripted }
  checkouts: { offline: ${s.offline ?? 2}, speed: ${s.speed ?? 0}, login_shell: false${s.perJob ? `, per_job: ${s.perJob}` : ''} }
  budget: { max_iterations: 3, max_wall_s: 600 }${s.extra ?? ''}
tasks:${s.tasks}
`;
}

export function writeSuite(dir: string, text: string, file = 'suite.yaml'): string {
  const path = join(dir, file);
  writeFileSync(path, text);
  return path;
}

/** A folder for the test file, with MACE_HOME pointing into it so offline checkouts stay there. */
export function labHome(): string {
  const dir = tempDir('mace-suite-');
  process.env.MACE_HOME = join(dir, 'home');
  return dir;
}

export interface RecordedRun {
  run_id: string;
  task: string;
  method: string;
  repeat: number;
  seed: number | null;
  status: string;
  job_key: string;
  fault: string | null;
  backend: string | null;
  options: string | null;
  meta: string;
  started: number;
  finished: number | null;
}

export async function recordedRuns(db: string): Promise<RecordedRun[]> {
  const store = await Store.openForRead(db);
  return store.read((q) =>
    q.all<RecordedRun>(
      `SELECT run_id, task, method, repeat, seed, status, job_key, fault, backend, CAST(options AS VARCHAR) AS options,
              CAST(meta AS VARCHAR) AS meta, epoch_ms(started_at) AS started, epoch_ms(finished_at) AS finished
       FROM runs ORDER BY started_at`,
    ),
  );
}
