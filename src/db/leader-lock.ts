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

/**
 * How long a held lock is taken as still held without asking its connection. A connection the
 * server closes (a failover, a killed session) is dropped at once by its `end` event; only a
 * connection that went silent is found out by the query, this late at most. Pollers ask at
 * every round, and a followed chain's round starts on every new head: not asking each time
 * keeps a round trip off the way from a block to its webhooks.
 */
const TRUSTED_MS = 1_000;

export function createLeaderLock(database: DatabaseHandle, name: string): LeaderLock {
  if (database.engine.kind === 'pglite') {
    return { acquire: async () => true, release: async () => {} };
  }
  // The pool serves requests; a lock held for hours must not keep one of its connections.
  const { connectionString } = database.engine.pool.options;
  let client: pg.Client | null = null;
  /** When the held connection last answered (performance.now()). */
  let answeredAt = 0;

  const drop = (candidate: pg.Client) => {
    if (client === candidate) client = null;
    candidate.end().catch(() => {});
  };

  return {
    async acquire() {
      if (client) {
        // Still connected means still held: a lost connection took the lock with it.
        if (performance.now() - answeredAt < TRUSTED_MS) return true;
        const held = client;
        if (
          await held.query('select 1').then(
            () => true,
            () => false,
          )
        ) {
          answeredAt = performance.now();
          return true;
        }
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
          answeredAt = performance.now();
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
