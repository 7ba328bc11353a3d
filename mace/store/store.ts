/**
 * The DuckDB results store. DuckDB lets one process hold a database file at a time (a second one
 * fails even read-only), so a sweep must not keep the file open: every read or write borrows a
 * shared handle for one transaction, and the handle is closed soon after the last borrower is done.
 * A process that finds the file locked waits and retries, so a notebook or `mace results` reads
 * while a sweep writes, and two writers take turns instead of corrupting anything.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  DuckDBConnection,
  DuckDBInstance,
  DuckDBListVector,
  DuckDBPreparedStatement,
  INTEGER,
  JSDuckDBValueConverter,
  LIST,
  TIMESTAMP,
  VARCHAR,
  jsToDuckDBValue,
  listValue,
  type DuckDBType,
  type DuckDBValue,
  type DuckDBVector,
} from '@duckdb/node-api';
import { InputError } from '../errors.ts';
import { MIGRATIONS, SCHEMA_VERSION, TABLES, type ColumnType, type TableName } from './schema.ts';

export type StoreMode = 'write' | 'read';

export interface StoreOptions {
  /** How long to wait for another process to release the file before giving up. */
  readonly lockTimeoutMs?: number;
  /**
   * Keep an idle handle this long, so the writes of a run open the file once (opening and closing
   * cost ~45 ms). While idle the holder checks every WAIT_POLL_MS whether another process is
   * waiting, and lets go at once if one is.
   */
  readonly lingerMs?: number;
  /**
   * After holding the file this long, close it at the next idle moment and pause, so others get a
   * turn. A process waiting for the file says so (a `.waiting` file beside it), which makes the
   * holder let go at once; this limit only matters for a waiter that cannot write that file.
   */
  readonly maxHoldMs?: number;
  /** Migrate a new or old file only this far (tests use it to write a file as an older release did). */
  readonly schemaVersion?: number;
}

const DEFAULTS = {
  lockTimeoutMs: 120_000,
  lingerMs: 5_000,
  maxHoldMs: 30_000,
  schemaVersion: SCHEMA_VERSION,
} satisfies Required<StoreOptions>;
const YIELD_MS = 80;
const WAIT_POLL_MS = 50;
/** A `.waiting` file touched this recently means another process is waiting for the lock. */
const WAITING_FRESH_MS = 1_500;

const waitingFile = (path: string) => `${path}.waiting`;

function someoneWaiting(path: string): boolean {
  try {
    const stat = statSync(waitingFile(path));
    return (
      Date.now() - stat.mtimeMs < WAITING_FRESH_MS && readFileSync(waitingFile(path), 'utf8') !== String(process.pid)
    );
  } catch {
    return false;
  }
}

function announceWaiting(path: string): void {
  try {
    writeFileSync(waitingFile(path), String(process.pid));
  } catch {
    // A read-only folder: the holder lets go after maxHoldMs instead.
  }
}

/** A value a column accepts from a writer. */
export type CellValue = string | number | boolean | Date | null | undefined | readonly string[] | object;
export type Row = Record<string, CellValue>;
export type Params = readonly unknown[];

/** What a read or write is handed: prepared, parameterised SQL only. */
export interface Queries {
  /** Rows as plain objects; BIGINT becomes number, TIMESTAMP a Date, JSON stays a string. */
  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]>;
  one<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined>;
  /** Column name → values, in result order: for large results, far cheaper than row objects. */
  columns(sql: string, params?: Params): Promise<Record<string, unknown[]>>;
}

export interface Tx extends Queries {
  run(sql: string, params?: Params): Promise<void>;
  /** INSERT OR REPLACE on the table's primary key: the last record of a key stands. */
  upsert(table: TableName, row: Row): Promise<void>;
  /**
   * Record a fact once: inserting a row whose primary key is already there changes nothing. Writers of
   * facts use it; it costs a fraction of upsert in DuckDB.
   */
  insert(table: TableName, row: Row): Promise<void>;
  /** Set some columns of the row with this primary key. */
  update(table: TableName, key: Row, values: Row): Promise<void>;
}

/** A connection kept with the statements it has prepared, so a repeated insert is only bound and run. */
interface PooledConnection {
  readonly connection: DuckDBConnection;
  readonly prepared: Map<string, DuckDBPreparedStatement>;
}

interface Handle {
  readonly mode: StoreMode;
  instance: DuckDBInstance;
  /** Idle connections; each borrower takes its own, since a connection runs one transaction at a time. */
  idle: PooledConnection[];
  refs: number;
  openedAt: number;
  closeTimer: NodeJS.Timeout | undefined;
  /** Set when the handle has been held too long: no new borrower until it has closed. */
  draining: boolean;
  closed: Promise<void> | undefined;
}

const handles = new Map<string, Handle>();
const migrated = new Set<string>();

/** A results database file. Cheap to create: nothing is opened until the first read or write. */
export class Store {
  readonly path: string;
  readonly mode: StoreMode;
  private readonly options: Required<StoreOptions>;
  private readonly pending: ((tx: Tx) => Promise<void>)[] = [];

  private constructor(path: string, mode: StoreMode, options: StoreOptions) {
    this.path = path;
    this.mode = mode;
    this.options = { ...DEFAULTS, ...options };
  }

  /**
   * Open (creating it if needed) a database for writing; the schema is migrated on first use.
   * @example const store = await Store.open('runs/quickstart.duckdb');
   */
  static async open(path: string, options: StoreOptions = {}): Promise<Store> {
    const full = resolve(path);
    mkdirSync(dirname(full), { recursive: true });
    const store = new Store(full, 'write', options);
    await store.migrate(store.options.schemaVersion);
    return store;
  }

  /** Open an existing database for reading; a file written by an older version is migrated first. */
  static async openForRead(path: string, options: StoreOptions = {}): Promise<Store> {
    const full = resolve(path);
    if (!existsSync(full)) throw new InputError(`no results database at ${path}`);
    const reader = new Store(full, 'read', options);
    const version = await reader.read((q) => schemaVersion(q));
    if (version < SCHEMA_VERSION) await new Store(full, 'write', options).migrate();
    return reader;
  }

  /** The schema version of the file (0 for an empty file). */
  async version(): Promise<number> {
    return this.read((q) => schemaVersion(q));
  }

  /** Run `fn` with read access. */
  async read<T>(fn: (q: Queries) => Promise<T>): Promise<T> {
    return this.borrow(async ({ connection }) => fn(queries(connection)));
  }

  /** Run `fn` in one transaction: all of it is committed, or none of it. */
  async write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.mode !== 'write') throw new Error(`store ${this.path} was opened for reading`);
    return this.borrow(async (pooled) => {
      const { connection } = pooled;
      const pending = this.pending.splice(0);
      await connection.run('BEGIN TRANSACTION');
      try {
        const tx = transaction(pooled);
        for (const record of pending) await record(tx);
        const result = await fn(tx);
        await connection.run('COMMIT');
        return result;
      } catch (error) {
        await connection.run('ROLLBACK').catch(() => undefined);
        this.pending.unshift(...pending);
        throw error;
      }
    });
  }

  /**
   * Queue a record for the next write's transaction instead of committing it alone: a commit costs
   * a WAL sync, and a step's small records (LLM calls, step results, plan checks) can share the
   * commit of the step that follows them. A crash loses at most those, the step in flight.
   */
  later(record: (tx: Tx) => Promise<void>): void {
    if (this.mode !== 'write') throw new Error(`store ${this.path} was opened for reading`);
    this.pending.push(record);
  }

  /** Commit whatever later() queued. */
  async flush(): Promise<void> {
    if (this.pending.length) await this.write(async () => undefined);
  }

  /** Bring the file up to version `to`, applying only the migrations it lacks. */
  private async migrate(to = SCHEMA_VERSION): Promise<void> {
    if (to === SCHEMA_VERSION && migrated.has(this.path)) return;
    await this.write(async (tx) => {
      await tx.run(
        'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP NOT NULL, description VARCHAR)',
      );
      const current = await schemaVersion(tx);
      if (current > SCHEMA_VERSION) {
        throw new InputError(
          `${this.path} was written by a newer MACE-TS (schema version ${current}); this one reads up to ${SCHEMA_VERSION}`,
        );
      }
      for (const migration of MIGRATIONS) {
        if (migration.version <= current || migration.version > to) continue;
        for (const statement of migration.statements) await tx.run(statement);
        await tx.run('INSERT INTO schema_version VALUES ($1, now()::TIMESTAMP, $2)', [
          migration.version,
          migration.description,
        ]);
      }
    });
    if (to === SCHEMA_VERSION) migrated.add(this.path);
  }

  private async borrow<T>(fn: (pooled: PooledConnection) => Promise<T>): Promise<T> {
    const handle = await this.acquire();
    let pooled: PooledConnection | undefined;
    try {
      pooled = handle.idle.pop() ?? { connection: await handle.instance.connect(), prepared: new Map() };
      return await fn(pooled);
    } finally {
      if (pooled) handle.idle.push(pooled);
      this.release(handle);
    }
  }

  private async acquire(): Promise<Handle> {
    for (;;) {
      const existing = handles.get(this.path);
      if (!existing) break;
      if (existing.closed) {
        await existing.closed;
        continue;
      }
      if (existing.draining || (existing.mode === 'read' && this.mode === 'write')) {
        await sleep(5);
        continue;
      }
      clearInterval(existing.closeTimer);
      existing.closeTimer = undefined;
      existing.refs += 1;
      return existing;
    }
    const instance = await openWithRetry(this.path, this.mode, this.options.lockTimeoutMs);
    // Another borrower in this process may have opened it while we waited for the lock.
    if (handles.has(this.path)) {
      instance.closeSync();
      return this.acquire();
    }
    const handle: Handle = {
      mode: this.mode,
      instance,
      idle: [],
      refs: 1,
      openedAt: Date.now(),
      closeTimer: undefined,
      draining: false,
      closed: undefined,
    };
    handles.set(this.path, handle);
    return handle;
  }

  private release(handle: Handle): void {
    handle.refs -= 1;
    if (Date.now() - handle.openedAt > this.options.maxHoldMs || someoneWaiting(this.path)) handle.draining = true;
    if (handle.refs > 0) return;
    if (handle.draining) {
      closeHandle(this.path, handle, YIELD_MS);
      return;
    }
    // Idle: let go after the linger, or as soon as another process says it is waiting. The timer
    // does not keep the process alive; committed writes are safe in the WAL if it exits first.
    const idleSince = Date.now();
    handle.closeTimer = setInterval(
      () => {
        const waiting = someoneWaiting(this.path);
        if (waiting || Date.now() - idleSince >= this.options.lingerMs)
          closeHandle(this.path, handle, waiting ? YIELD_MS : 0);
      },
      Math.min(WAIT_POLL_MS, this.options.lingerMs),
    );
    handle.closeTimer.unref();
  }
}

/** Close every idle handle now and forget what was migrated (for tests and a clean process exit). */
export async function closeAllStores(): Promise<void> {
  migrated.clear();
  for (const [path, handle] of [...handles]) {
    if (handle.refs === 0) {
      clearInterval(handle.closeTimer);
      closeHandle(path, handle, 0);
    }
    await handle.closed;
  }
}

function closeHandle(path: string, handle: Handle, pauseMs: number): void {
  if (handle.closed) return;
  clearInterval(handle.closeTimer);
  handle.closed = (async () => {
    for (const { connection } of handle.idle.splice(0)) connection.closeSync();
    handle.instance.closeSync();
    // The pause lets a process waiting for the lock take its turn before we reopen.
    if (pauseMs > 0) await sleep(pauseMs);
    handles.delete(path);
  })();
}

const LOCK_RE = /Could not set lock|Conflicting lock|database is locked/i;

async function openWithRetry(path: string, mode: StoreMode, timeoutMs: number): Promise<DuckDBInstance> {
  const options: Record<string, string> = {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    threads: '1',
  };
  if (mode === 'read') options.access_mode = 'READ_ONLY';
  const deadline = Date.now() + timeoutMs;
  let wait = 10;
  for (;;) {
    try {
      return await DuckDBInstance.create(path, options);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!LOCK_RE.test(message)) throw error;
      announceWaiting(path);
      if (Date.now() >= deadline) {
        const holder = /PID (\d+)/.exec(message)?.[1];
        throw new Error(
          `${path} stayed locked for ${Math.round(timeoutMs / 1000)} s` +
            (holder ? ` by process ${holder}` : '') +
            '; another MACE-TS process keeps it open (DuckDB allows one process at a time). Wait for it, or read a copy.',
          { cause: error },
        );
      }
      await sleep(wait + Math.random() * wait);
      wait = Math.min(wait * 2, 120);
    }
  }
}

async function schemaVersion(q: Queries): Promise<number> {
  const table = await q.one("SELECT 1 AS present FROM information_schema.tables WHERE table_name = 'schema_version'");
  if (!table) return 0;
  const row = await q.one<{ version: number | null }>('SELECT max(version) AS version FROM schema_version');
  return row?.version ?? 0;
}

function queries(connection: DuckDBConnection): Queries {
  // Results are read a chunk and a column at a time (appendPlain), rows built from the columns after:
  // the library's row objects cost several times more on results of thousands of rows.
  const read = async (sql: string, params: Params) => {
    const result = await connection.run(sql, params.map(toDuckValue) as DuckDBValue[]);
    const names = result.columnNames();
    const columns = names.map((): unknown[] => []);
    for (let chunk = await result.fetchChunk(); chunk?.rowCount; chunk = await result.fetchChunk()) {
      for (let c = 0; c < names.length; c++) appendPlain(chunk.getColumnVector(c), chunk.rowCount, columns[c]!);
    }
    return { names, columns };
  };
  const all = async <T>(sql: string, params: Params = []): Promise<T[]> => {
    const { names, columns } = await read(sql, params);
    const rows: Record<string, unknown>[] = [];
    for (let i = 0; i < (columns[0]?.length ?? 0); i++) {
      const row: Record<string, unknown> = {};
      for (let c = 0; c < names.length; c++) row[names[c]!] = columns[c]![i];
      rows.push(row);
    }
    return rows as T[];
  };
  return {
    all,
    one: async <T>(sql: string, params: Params = []) => (await all<T>(sql, params))[0],
    async columns(sql, params = []) {
      const { names, columns } = await read(sql, params);
      return Object.fromEntries(names.map((name, c) => [name, columns[c]!]));
    },
  };
}

function transaction({ connection, prepared }: PooledConnection): Tx {
  const run = async (sql: string, params: Params = []) => {
    await connection.run(sql, params.map(toDuckValue) as DuckDBValue[]);
  };
  return {
    ...queries(connection),
    run,
    upsert: (table, row) => insertRow({ connection, prepared }, 'replace', table, row),
    insert: (table, row) => insertRow({ connection, prepared }, 'ignore', table, row),
    async update(table, key, values) {
      const columns = TABLES[table].columns as Record<string, ColumnType>;
      const set = Object.keys(values).filter((name) => values[name] !== undefined);
      const where = Object.keys(key);
      const names = [...set, ...where];
      for (const name of names) if (!(name in columns)) throw new Error(`table ${table} has no column ${name}`);
      const all = { ...values, ...key };
      const placeholder = (name: string, i: number) => `$${i + 1}${columns[name] === 'JSON' ? '::JSON' : ''}`;
      await connection.run(
        `UPDATE ${table} SET ${set.map((name, i) => `${name} = ${placeholder(name, i)}`).join(', ')} ` +
          `WHERE ${where.map((name, i) => `${name} = ${placeholder(name, set.length + i)}`).join(' AND ')}`,
        names.map((name) => cell(columns[name]!, all[name])),
        names.map((name) => duckType(columns[name]!)),
      );
    },
  };
}

async function insertRow(
  pooled: PooledConnection,
  verb: 'replace' | 'ignore',
  table: TableName,
  row: Row,
): Promise<void> {
  const spec = TABLES[table];
  const columns = spec.columns as Record<string, ColumnType>;
  const names = Object.keys(row).filter((name) => row[name] !== undefined);
  for (const name of names) if (!(name in columns)) throw new Error(`table ${table} has no column ${name}`);
  const placeholder = (name: string) => `$${names.indexOf(name) + 1}${columns[name] === 'JSON' ? '::JSON' : ''}`;
  const values = names.map(placeholder).join(', ');
  // DuckDB's ON CONFLICT machinery costs several times a plain insert; for a fact recorded once, a
  // primary-key lookup does the same job.
  const sql =
    verb === 'replace'
      ? `INSERT OR REPLACE INTO ${table} (${names.join(', ')}) VALUES (${values})`
      : `INSERT INTO ${table} (${names.join(', ')}) SELECT ${values} WHERE NOT EXISTS ` +
        `(SELECT 1 FROM ${table} WHERE ${spec.primaryKey.map((key) => `${key} = ${placeholder(key)}`).join(' AND ')})`;
  let statement = pooled.prepared.get(sql);
  if (!statement) {
    statement = await pooled.connection.prepare(sql);
    pooled.prepared.set(sql, statement);
  }
  statement.bind(
    names.map((name) => cell(columns[name]!, row[name])),
    names.map((name) => duckType(columns[name]!)),
  );
  await statement.run();
}

function duckType(type: ColumnType): DuckDBType {
  switch (type) {
    case 'VARCHAR':
    case 'JSON':
      return VARCHAR;
    case 'INTEGER':
      return INTEGER;
    case 'BIGINT':
      return BIGINT;
    case 'DOUBLE':
      return DOUBLE;
    case 'BOOLEAN':
      return BOOLEAN;
    case 'TIMESTAMP':
      return TIMESTAMP;
    case 'VARCHAR[]':
      return LIST(VARCHAR);
  }
}

function cell(type: ColumnType, value: CellValue): DuckDBValue {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'JSON':
      return JSON.stringify(value);
    case 'TIMESTAMP':
      return jsToDuckDBValue(value instanceof Date ? value : new Date(value as number), TIMESTAMP);
    case 'VARCHAR[]':
      return listValue((value as readonly string[]).map(String));
    case 'BIGINT':
      return BigInt(Math.round(value as number));
    case 'INTEGER':
    case 'DOUBLE':
      return Number(value);
    case 'BOOLEAN':
      return Boolean(value);
    case 'VARCHAR':
      return String(value);
  }
}

function toDuckValue(value: unknown): DuckDBValue {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return jsToDuckDBValue(value, TIMESTAMP);
  if (Array.isArray(value)) return listValue(value.map(toDuckValue));
  return value as DuckDBValue;
}

/**
 * A vector's first `count` values, appended as plain values. Numbers, text and booleans are read
 * straight from the vector and only other types go through the JS converter: the converter's call
 * per value costs more than the query itself on a result of a hundred thousand rows. A list is read
 * item by item from its slice of the list's child vector, the same way.
 */
function appendPlain(vector: DuckDBVector, count: number, out: unknown[]): void {
  if (vector instanceof DuckDBListVector) {
    for (let i = 0; i < count; i++) {
      const items = vector.getItemVector(i);
      out.push(items && Array.from({ length: items.itemCount }, (_, k) => plainItem(items, k)));
    }
  } else {
    for (let i = 0; i < count; i++) out.push(plainItem(vector, i));
  }
}

function plainItem(vector: DuckDBVector, i: number): unknown {
  const value = vector.getItem(i);
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? Number(value) : value;
  return plainValue(JSDuckDBValueConverter(value, vector.type, JSDuckDBValueConverter));
}

function plainValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plainValue);
  return value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
