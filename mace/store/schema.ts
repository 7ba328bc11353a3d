/**
 * The results database: the tables as they stand now (TABLES), and the forward migrations that
 * bring a file written by any earlier version up to them (MIGRATIONS). A test checks that applying
 * every migration yields exactly TABLES, so the two cannot drift apart.
 */

export type ColumnType = 'VARCHAR' | 'INTEGER' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMP' | 'JSON' | 'VARCHAR[]';

export interface TableSpec {
  /** Column name to type, in table order. */
  readonly columns: Readonly<Record<string, ColumnType>>;
  readonly primaryKey: readonly string[];
}

const run_columns = {
  run_id: 'VARCHAR',
  objective: 'VARCHAR',
  core: 'VARCHAR',
  x_tiles: 'INTEGER',
  y_tiles: 'INTEGER',
  started_at: 'TIMESTAMP',
  finished_at: 'TIMESTAMP',
  status: 'VARCHAR',
  method: 'VARCHAR',
  task: 'VARCHAR',
  repeat: 'INTEGER',
  seed: 'BIGINT',
  meta: 'JSON',
  workloads: 'VARCHAR[]',
  spec: 'JSON',
  options: 'JSON',
  backend: 'VARCHAR',
  model: 'VARCHAR',
  suite_hash: 'VARCHAR',
  job_key: 'VARCHAR',
  fault: 'VARCHAR',
  error: 'VARCHAR',
} as const satisfies Record<string, ColumnType>;

export const TABLES = {
  runs: { columns: run_columns, primaryKey: ['run_id'] },
  iterations: {
    columns: {
      run_id: 'VARCHAR',
      iteration: 'INTEGER',
      num_tasks: 'INTEGER',
      num_passed: 'INTEGER',
      wall_s: 'DOUBLE',
      usd: 'DOUBLE',
      started_at: 'TIMESTAMP',
      finished_at: 'TIMESTAMP',
      plan: 'JSON',
      feedback: 'VARCHAR',
    },
    primaryKey: ['run_id', 'iteration'],
  },
  tasks: {
    columns: {
      run_id: 'VARCHAR',
      iteration: 'INTEGER',
      task_id: 'VARCHAR',
      kind: 'VARCHAR',
      spec: 'VARCHAR',
      passed: 'BOOLEAN',
      build_success: 'BOOLEAN',
      run_verdict: 'VARCHAR',
      wall_s: 'DOUBLE',
      caches: 'JSON',
      module: 'VARCHAR',
      build_s: 'DOUBLE',
      run_s: 'DOUBLE',
      programs: 'JSON',
      evidence: 'VARCHAR',
      config_rtl: 'VARCHAR[]',
      deps: 'VARCHAR[]',
      network: 'VARCHAR',
      sims_flags: 'VARCHAR[]',
      build_id: 'VARCHAR',
      build_reused: 'BOOLEAN',
      failure_reason: 'VARCHAR',
      build_errors: 'VARCHAR[]',
      sim_time: 'BIGINT',
      checkout: 'VARCHAR',
      started_at: 'TIMESTAMP',
      finished_at: 'TIMESTAMP',
      rtl_diff: 'VARCHAR',
    },
    primaryKey: ['run_id', 'iteration', 'task_id'],
  },
  failures: {
    columns: {
      run_id: 'VARCHAR',
      iteration: 'INTEGER',
      task_id: 'VARCHAR',
      diagnosis: 'VARCHAR',
      fix: 'VARCHAR',
      recovered: 'BOOLEAN',
      stage: 'VARCHAR',
      narrowing: 'VARCHAR',
      feedback: 'VARCHAR',
    },
    primaryKey: ['run_id', 'iteration', 'task_id'],
  },
  post_mortems: {
    columns: {
      run_id: 'VARCHAR',
      assessment: 'VARCHAR',
      explanation: 'VARCHAR',
      next_steps: 'VARCHAR',
    },
    primaryKey: ['run_id'],
  },
  llm_calls: {
    columns: {
      run_id: 'VARCHAR',
      seq: 'INTEGER',
      iteration: 'INTEGER',
      phase: 'VARCHAR',
      input_tokens: 'BIGINT',
      output_tokens: 'BIGINT',
      thinking_tokens: 'BIGINT',
      usd: 'DOUBLE',
      wall_s: 'DOUBLE',
      ok: 'BOOLEAN',
      reply: 'VARCHAR',
      task_id: 'VARCHAR',
      replay_tag: 'VARCHAR',
      backend: 'VARCHAR',
      model: 'VARCHAR',
      prompt: 'VARCHAR',
      error: 'VARCHAR',
      started_at: 'TIMESTAMP',
      tool_calls: 'JSON',
    },
    primaryKey: ['run_id', 'seq'],
  },
  evaluations: {
    columns: {
      run_id: 'VARCHAR',
      idx: 'INTEGER',
      round: 'INTEGER',
      design: 'JSON',
      passed: 'BOOLEAN',
      feasible: 'BOOLEAN',
      sim_time: 'BIGINT',
      area_um2: 'DOUBLE',
      read_energy_nj: 'DOUBLE',
      area_source: 'VARCHAR',
      wall_s: 'DOUBLE',
      simulated: 'BOOLEAN',
      rejected: 'VARCHAR',
    },
    primaryKey: ['run_id', 'idx'],
  },
  resimulations: {
    columns: {
      run_id: 'VARCHAR',
      task_id: 'VARCHAR',
      program: 'VARCHAR',
      verdict: 'VARCHAR',
      passed: 'BOOLEAN',
      wall_s: 'DOUBLE',
    },
    primaryKey: ['run_id', 'task_id', 'program'],
  },
  plan_checks: {
    columns: {
      run_id: 'VARCHAR',
      iteration: 'INTEGER',
      attempt: 'INTEGER',
      action: 'VARCHAR',
      rules: 'VARCHAR[]',
      problems: 'JSON',
      stripped: 'JSON',
      added: 'JSON',
      plan: 'JSON',
    },
    primaryKey: ['run_id', 'iteration', 'attempt'],
  },
  probes: {
    columns: {
      run_id: 'VARCHAR',
      iteration: 'INTEGER',
      probe: 'INTEGER',
      task_id: 'VARCHAR',
      undone: 'JSON',
      passed: 'BOOLEAN',
      build_success: 'BOOLEAN',
      run_verdict: 'VARCHAR',
      failure_reason: 'VARCHAR',
      wall_s: 'DOUBLE',
      sims_flags: 'VARCHAR[]',
      build_id: 'VARCHAR',
      checkout: 'VARCHAR',
      started_at: 'TIMESTAMP',
      finished_at: 'TIMESTAMP',
      verdict: 'VARCHAR',
    },
    primaryKey: ['run_id', 'iteration', 'probe'],
  },
  fast_paths: {
    columns: {
      run_id: 'VARCHAR',
      iteration: 'INTEGER',
      kept_task: 'VARCHAR',
      replaced: 'VARCHAR[]',
      sims_flags: 'VARCHAR[]',
    },
    primaryKey: ['run_id', 'iteration'],
  },
  step_results: {
    columns: {
      run_id: 'VARCHAR',
      tag: 'VARCHAR',
      kind: 'VARCHAR',
      checkout: 'VARCHAR',
      result: 'JSON',
      recorded_at: 'TIMESTAMP',
    },
    primaryKey: ['run_id', 'tag', 'kind'],
  },
  sweeps: {
    columns: {
      sweep_id: 'VARCHAR',
      suite: 'VARCHAR',
      suite_file: 'VARCHAR',
      suite_hash: 'VARCHAR',
      started_at: 'TIMESTAMP',
      finished_at: 'TIMESTAMP',
      status: 'VARCHAR',
      jobs: 'INTEGER',
      todo: 'INTEGER',
      checkouts: 'INTEGER',
      host: 'VARCHAR',
      pid: 'INTEGER',
      labels: 'JSON',
    },
    primaryKey: ['sweep_id'],
  },
} as const satisfies Record<string, TableSpec>;

export type TableName = keyof typeof TABLES;
export const TABLE_NAMES = Object.keys(TABLES) as TableName[];

export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly statements: readonly string[];
}

/**
 * Forward migrations, oldest first. Never edit one that has shipped: add the next.
 * Version 1 holds the nine tables of the original Python MACE with DuckDB types; version 2 adds the
 * records of the fixed checks (plan checks, probes, fast paths) and the provenance and replay
 * columns the original lacked.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description:
      "the original's tables: runs, iterations, tasks, failures, post-mortems, LLM calls, evaluations, re-simulations",
    statements: [
      `CREATE TABLE runs (
        run_id VARCHAR PRIMARY KEY, objective VARCHAR NOT NULL, core VARCHAR NOT NULL,
        x_tiles INTEGER NOT NULL, y_tiles INTEGER NOT NULL, started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP,
        status VARCHAR NOT NULL DEFAULT 'running', method VARCHAR, task VARCHAR, repeat INTEGER, seed BIGINT, meta JSON)`,
      `CREATE TABLE iterations (
        run_id VARCHAR NOT NULL, iteration INTEGER NOT NULL, num_tasks INTEGER NOT NULL DEFAULT 0,
        num_passed INTEGER NOT NULL DEFAULT 0, wall_s DOUBLE NOT NULL DEFAULT 0, usd DOUBLE NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, iteration))`,
      `CREATE TABLE tasks (
        run_id VARCHAR NOT NULL, iteration INTEGER NOT NULL, task_id VARCHAR NOT NULL, kind VARCHAR NOT NULL,
        spec VARCHAR NOT NULL, passed BOOLEAN NOT NULL, build_success BOOLEAN NOT NULL, run_verdict VARCHAR,
        wall_s DOUBLE NOT NULL DEFAULT 0, caches JSON, module VARCHAR, build_s DOUBLE, run_s DOUBLE, programs JSON,
        evidence VARCHAR, config_rtl VARCHAR[], PRIMARY KEY (run_id, iteration, task_id))`,
      `CREATE TABLE failures (
        run_id VARCHAR NOT NULL, iteration INTEGER NOT NULL, task_id VARCHAR NOT NULL, diagnosis VARCHAR NOT NULL,
        fix VARCHAR, recovered BOOLEAN NOT NULL DEFAULT false, PRIMARY KEY (run_id, iteration, task_id))`,
      `CREATE TABLE post_mortems (
        run_id VARCHAR PRIMARY KEY, assessment VARCHAR NOT NULL, explanation VARCHAR, next_steps VARCHAR)`,
      `CREATE TABLE llm_calls (
        run_id VARCHAR NOT NULL, seq INTEGER NOT NULL, iteration INTEGER, phase VARCHAR NOT NULL,
        input_tokens BIGINT NOT NULL DEFAULT 0, output_tokens BIGINT NOT NULL DEFAULT 0,
        thinking_tokens BIGINT NOT NULL DEFAULT 0, usd DOUBLE NOT NULL DEFAULT 0, wall_s DOUBLE NOT NULL DEFAULT 0,
        ok BOOLEAN NOT NULL DEFAULT true, reply VARCHAR, PRIMARY KEY (run_id, seq))`,
      `CREATE TABLE evaluations (
        run_id VARCHAR NOT NULL, idx INTEGER NOT NULL, round INTEGER NOT NULL, design JSON NOT NULL,
        passed BOOLEAN NOT NULL, feasible BOOLEAN NOT NULL, sim_time BIGINT, area_um2 DOUBLE, read_energy_nj DOUBLE,
        area_source VARCHAR, wall_s DOUBLE NOT NULL DEFAULT 0, simulated BOOLEAN NOT NULL DEFAULT true,
        rejected VARCHAR NOT NULL DEFAULT '', PRIMARY KEY (run_id, idx))`,
      `CREATE TABLE resimulations (
        run_id VARCHAR NOT NULL, task_id VARCHAR NOT NULL, program VARCHAR NOT NULL, verdict VARCHAR,
        passed BOOLEAN NOT NULL, wall_s DOUBLE NOT NULL DEFAULT 0, PRIMARY KEY (run_id, task_id, program))`,
    ],
  },
  {
    version: 2,
    description: 'fixed-check records (plan checks, probes, fast paths), provenance and replay columns',
    statements: [
      `ALTER TABLE runs ADD COLUMN workloads VARCHAR[]`,
      `ALTER TABLE runs ADD COLUMN spec JSON`,
      `ALTER TABLE runs ADD COLUMN options JSON`,
      `ALTER TABLE runs ADD COLUMN backend VARCHAR`,
      `ALTER TABLE runs ADD COLUMN model VARCHAR`,
      `ALTER TABLE runs ADD COLUMN suite_hash VARCHAR`,
      `ALTER TABLE runs ADD COLUMN job_key VARCHAR`,
      `ALTER TABLE runs ADD COLUMN fault VARCHAR`,
      `ALTER TABLE runs ADD COLUMN error VARCHAR`,
      `ALTER TABLE iterations ADD COLUMN started_at TIMESTAMP`,
      `ALTER TABLE iterations ADD COLUMN finished_at TIMESTAMP`,
      `ALTER TABLE iterations ADD COLUMN plan JSON`,
      `ALTER TABLE iterations ADD COLUMN feedback VARCHAR`,
      `ALTER TABLE tasks ADD COLUMN deps VARCHAR[]`,
      `ALTER TABLE tasks ADD COLUMN network VARCHAR`,
      `ALTER TABLE tasks ADD COLUMN sims_flags VARCHAR[]`,
      `ALTER TABLE tasks ADD COLUMN build_id VARCHAR`,
      `ALTER TABLE tasks ADD COLUMN build_reused BOOLEAN`,
      `ALTER TABLE tasks ADD COLUMN failure_reason VARCHAR`,
      `ALTER TABLE tasks ADD COLUMN build_errors VARCHAR[]`,
      `ALTER TABLE tasks ADD COLUMN sim_time BIGINT`,
      `ALTER TABLE tasks ADD COLUMN checkout VARCHAR`,
      `ALTER TABLE tasks ADD COLUMN started_at TIMESTAMP`,
      `ALTER TABLE tasks ADD COLUMN finished_at TIMESTAMP`,
      `ALTER TABLE tasks ADD COLUMN rtl_diff VARCHAR`,
      `ALTER TABLE failures ADD COLUMN stage VARCHAR`,
      `ALTER TABLE failures ADD COLUMN narrowing VARCHAR`,
      `ALTER TABLE failures ADD COLUMN feedback VARCHAR`,
      `ALTER TABLE llm_calls ADD COLUMN task_id VARCHAR`,
      `ALTER TABLE llm_calls ADD COLUMN replay_tag VARCHAR`,
      `ALTER TABLE llm_calls ADD COLUMN backend VARCHAR`,
      `ALTER TABLE llm_calls ADD COLUMN model VARCHAR`,
      `ALTER TABLE llm_calls ADD COLUMN prompt VARCHAR`,
      `ALTER TABLE llm_calls ADD COLUMN error VARCHAR`,
      `ALTER TABLE llm_calls ADD COLUMN started_at TIMESTAMP`,
      `ALTER TABLE llm_calls ADD COLUMN tool_calls JSON`,
      `CREATE TABLE plan_checks (
        run_id VARCHAR NOT NULL, iteration INTEGER NOT NULL, attempt INTEGER NOT NULL, action VARCHAR NOT NULL,
        rules VARCHAR[], problems JSON, stripped JSON, added JSON, plan JSON,
        PRIMARY KEY (run_id, iteration, attempt))`,
      `CREATE TABLE probes (
        run_id VARCHAR NOT NULL, iteration INTEGER NOT NULL, probe INTEGER NOT NULL, task_id VARCHAR NOT NULL,
        undone JSON NOT NULL, passed BOOLEAN NOT NULL, build_success BOOLEAN NOT NULL, run_verdict VARCHAR,
        failure_reason VARCHAR, wall_s DOUBLE NOT NULL DEFAULT 0, sims_flags VARCHAR[], build_id VARCHAR,
        checkout VARCHAR, started_at TIMESTAMP, finished_at TIMESTAMP, verdict VARCHAR,
        PRIMARY KEY (run_id, iteration, probe))`,
      `CREATE TABLE fast_paths (
        run_id VARCHAR NOT NULL, iteration INTEGER NOT NULL, kept_task VARCHAR NOT NULL, replaced VARCHAR[] NOT NULL,
        sims_flags VARCHAR[], PRIMARY KEY (run_id, iteration))`,
    ],
  },
  {
    version: 3,
    description: 'step results by replay tag, so a recorded run replays with no build and no simulation',
    statements: [
      `CREATE TABLE step_results (
        run_id VARCHAR NOT NULL, tag VARCHAR NOT NULL, kind VARCHAR NOT NULL, checkout VARCHAR, result JSON NOT NULL,
        recorded_at TIMESTAMP, PRIMARY KEY (run_id, tag, kind))`,
    ],
  },
  {
    version: 4,
    description: 'suite sweeps: one row per `mace suite run`, so `mace suite status` can follow it from elsewhere',
    statements: [
      `CREATE TABLE sweeps (
        sweep_id VARCHAR PRIMARY KEY, suite VARCHAR NOT NULL, suite_file VARCHAR, suite_hash VARCHAR,
        started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP, status VARCHAR NOT NULL, jobs INTEGER NOT NULL,
        todo INTEGER NOT NULL, checkouts INTEGER NOT NULL, host VARCHAR, pid INTEGER, labels JSON)`,
    ],
  },
  {
    version: 5,
    description: 'backend, model and fault read from runs.meta into their own columns, where version 1 kept them',
    statements: [
      `UPDATE runs SET backend = coalesce(backend, meta->>'$.backend'), model = coalesce(model, meta->>'$.model'),
        fault = coalesce(fault, meta->>'$.fault')
        WHERE (backend IS NULL AND (meta->>'$.backend') IS NOT NULL) OR (model IS NULL AND (meta->>'$.model') IS NOT NULL)
          OR (fault IS NULL AND (meta->>'$.fault') IS NOT NULL)`,
    ],
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
