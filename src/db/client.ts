import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type * as schema from './schema.ts';

/**
 * One database API over two engines: PGlite (embedded, in `DATA_DIR`) and Postgres
 * (`DATABASE_URL`). The rest of the code sees only `Database` and never learns which one runs.
 * Each engine lives in a module of its own (`pglite.ts`, `postgres.ts`), imported only when it
 * is opened: a process loads one driver, not both.
 */

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export type DatabaseKind = 'pglite' | 'postgres';

/** Rows of a raw SQL query; both drivers return them under `rows`. */
export async function queryRows<T>(db: Database, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

export interface DatabaseHandle {
  readonly db: Database;
  /**
   * The same database for the statements that walk a queue in order (the webhook dispatcher's
   * claims and records): on Postgres through connections of their own that plan without bitmap
   * scans. A claim must walk the queue's index: an index scan stops after the rows it takes and
   * marks the entries of rows already sent as dead, which later scans skip. A bitmap scan reads
   * every entry the index still holds (until a vacuum) and marks none; planned without
   * statistics (a new outbox, or a burst after a quiet hour) the planner chose it, and each
   * claim read more pages than the last. On PGlite, which has one connection, `db` itself.
   */
  readonly queue: Database;
  readonly kind: DatabaseKind;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The engine underneath, for migrations and tests. */
  readonly engine: { kind: 'pglite'; pglite: PGlite } | { kind: 'postgres'; pool: pg.Pool };
}

export interface OpenDatabaseOptions {
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  /**
   * PGlite's buffer cache (Postgres `shared_buffers`, e.g. `16MB`) for this process only;
   * unset, the data dir's own setting. Ignored on Postgres.
   */
  readonly pgliteSharedBuffers?: string;
}

const PGLITE_FOLDER = 'pgdata';

export class DatabaseInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `the embedded database in ${dataDir} is in use by process ${pid}; stop it first, or point DATABASE_URL at Postgres to run several processes`,
    );
    this.name = 'DatabaseInUseError';
  }
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl !== null) {
    const { openPostgres } = await import('./postgres.ts');
    return openPostgres(options.databaseUrl);
  }
  mkdirSync(options.dataDir, { recursive: true });
  const releaseLock = lockDataDir(options.dataDir);
  try {
    const { openPglite, wrapPglite } = await import('./pglite.ts');
    const pglite = await openPglite(join(options.dataDir, PGLITE_FOLDER), {
      ...(options.pgliteSharedBuffers !== undefined && {
        sharedBuffers: options.pgliteSharedBuffers,
      }),
    });
    return wrapPglite(pglite, releaseLock);
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/**
 * PGlite is one process's database: two processes opening the same folder would corrupt it.
 * A lock file holding the owner's pid keeps the CLI from opening it under a running server.
 */
function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, `${PGLITE_FOLDER}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new DatabaseInUseError(dataDir, owner);
      }
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not lock ${path}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
