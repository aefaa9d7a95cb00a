import type pg from 'pg';
import type { DatabaseHandle } from '../db/client.ts';

/**
 * "Only one of us does this": a Postgres session advisory lock held on a dedicated connection
 * for as long as this process does the work. If the process dies, its connection closes and
 * the lock passes to another. The embedded database has one process, so it always holds it.
 */
export interface LeaderLock {
  /** True when this process holds the lock (taking it if it is free). */
  acquire(): Promise<boolean>;
  release(): Promise<void>;
}

export function createLeaderLock(database: DatabaseHandle, name: string): LeaderLock {
  if (database.engine.kind === 'pglite') {
    return { acquire: async () => true, release: async () => {} };
  }
  const pool = database.engine.pool;
  let client: pg.PoolClient | null = null;
  return {
    async acquire() {
      if (client) return true;
      const candidate = await pool.connect();
      try {
        const result = await candidate.query<{ locked: boolean }>(
          'select pg_try_advisory_lock(hashtext($1)) as locked',
          [name],
        );
        if (result.rows[0]?.locked) {
          client = candidate;
          // A connection that breaks loses the lock with it; forget it so the next call retries.
          candidate.on('error', () => {
            client = null;
          });
          return true;
        }
      } catch {
        // Fall through: not holding it.
      }
      candidate.release();
      return false;
    },
    async release() {
      if (!client) return;
      const held = client;
      client = null;
      try {
        await held.query('select pg_advisory_unlock(hashtext($1))', [name]);
      } finally {
        held.release();
      }
    },
  };
}
