import type { PGlite } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type * as schema from './schema.ts';

/**
 * One database API over two engines: PGlite (embedded, in `DATA_DIR`) and Postgres
 * (`DATABASE_URL`). The rest of the code sees only `Database` and never learns which one runs.
 * Each engine lives in a module of its own (`pglite.ts`, `postgres.ts`), which `open.ts` imports
 * only when it opens one: a process loads one driver, not both.
 */

type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

type DatabaseKind = 'pglite' | 'postgres';

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
  readonly engine:
    | { kind: 'pglite'; pglite: PGlite }
    | { kind: 'postgres'; pool: pg.Pool; queuePool: pg.Pool };
}
