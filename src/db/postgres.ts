import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { DatabaseHandle } from './client.ts';
import * as schema from './schema.ts';

/**
 * The Postgres engine (`DATABASE_URL`). A module of its own so that a process on the embedded
 * database never loads `pg` and its drizzle driver, and the reverse.
 */

const POSTGRES_POOL_SIZE = 10;

export function openPostgres(url: string, poolSize = POSTGRES_POOL_SIZE): DatabaseHandle {
  // A request waits at most this long for a connection, then fails rather than queue forever.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = drizzle({ client: pool, schema, casing: 'snake_case' });
  return {
    db,
    kind: 'postgres',
    engine: { kind: 'postgres', pool },
    ping: async () => {
      await pool.query('select 1');
    },
    close: () => pool.end(),
  };
}
