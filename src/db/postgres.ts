import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { DatabaseHandle } from './client.ts';
import * as schema from './schema.ts';

/**
 * The Postgres engine (`DATABASE_URL`). A module of its own so that a process on the embedded
 * database never loads `pg` and its drizzle driver, and the reverse.
 */

const POSTGRES_POOL_SIZE = 10;
/** The dispatcher's claim, its record, and its failing of a dead endpoint's deliveries. */
const QUEUE_POOL_SIZE = 3;

export function openPostgres(url: string, poolSize = POSTGRES_POOL_SIZE): DatabaseHandle {
  const pool = openPool(url, poolSize);
  // `DatabaseHandle.queue` says why. A pool connects on its first query, so a process that
  // sends no webhooks opens none of these.
  const queuePool = openPool(url, QUEUE_POOL_SIZE, '-c enable_bitmapscan=off');
  return {
    db: drizzle({ client: pool, schema, casing: 'snake_case' }),
    queue: drizzle({ client: queuePool, schema, casing: 'snake_case' }),
    kind: 'postgres',
    engine: { kind: 'postgres', pool },
    ping: async () => {
      await pool.query('select 1');
    },
    close: async () => {
      await Promise.all([pool.end(), queuePool.end()]);
    },
  };
}

function openPool(url: string, max: number, options?: string): pg.Pool {
  // A request waits at most this long for a connection, then fails rather than queue forever.
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 10_000,
    ...(options !== undefined && { options }),
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}
