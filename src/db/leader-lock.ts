import pg from 'pg';
import type { DatabaseHandle } from './client.ts';

/**
 * "Only one of us does this": a Postgres session advisory lock held on a connection of its own,
 * outside the pool, for as long as this process does the work. If the process dies, its
 * connection closes and the lock passes to another. The embedded database has one process, so
 * it always holds it.
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
  // The pool serves requests; a lock held for hours must not keep one of its connections.
  const { connectionString } = database.engine.pool.options;
  let client: pg.Client | null = null;

  const drop = (candidate: pg.Client) => {
    if (client === candidate) client = null;
    candidate.end().catch(() => {});
  };

  return {
    async acquire() {
      if (client) {
        // Still connected means still held: a lost connection took the lock with it.
        const held = client;
        if (
          await held.query('select 1').then(
            () => true,
            () => false,
          )
        )
          return true;
        drop(held);
      }
      const candidate = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
      // A connection that breaks loses the lock with it; forget it so the next call retries.
      candidate.on('error', () => drop(candidate));
      candidate.on('end', () => drop(candidate));
      try {
        await candidate.connect();
        const result = await candidate.query<{ locked: boolean }>(
          'select pg_try_advisory_lock(hashtext($1)) as locked',
          [name],
        );
        if (result.rows[0]?.locked) {
          client = candidate;
          return true;
        }
      } catch {
        // Fall through: not holding it.
      }
      drop(candidate);
      return false;
    },
    async release() {
      if (!client) return;
      const held = client;
      client = null;
      try {
        await held.query('select pg_advisory_unlock(hashtext($1))', [name]);
      } finally {
        await held.end().catch(() => {});
      }
    },
  };
}
