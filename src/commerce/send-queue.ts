import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../db/client.ts';

/**
 * Runs the sends of one key (a network and an operator address) one after another: each signs
 * with the chain's pending nonce of that address, so the next may sign only once the previous
 * is broadcast. In one process, a queue per key; across processes sharing one operator key on
 * Postgres, each task also holds a transaction-scoped advisory lock on the key, so two
 * processes never take the same nonce. A task holds the queue for its signing and broadcast
 * only: waiting for a receipt happens outside it (execute.ts). PGlite has one process: the
 * in-process queue is all it needs.
 */
export interface SendQueue {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
}

export function createSendQueue(database?: Pick<DatabaseHandle, 'db' | 'kind'>): SendQueue {
  const tails = new Map<string, Promise<unknown>>();
  const locked = <T>(key: string, task: () => Promise<T>): Promise<T> =>
    database?.kind === 'postgres'
      ? database.db.transaction(async (tx) => {
          await tx.execute(
            sql`select pg_advisory_xact_lock(hashtextextended(${`payreq:commerce-send:${key}`}, 0))`,
          );
          return task();
        })
      : task();
  return {
    run(key, task) {
      const previous = tails.get(key) ?? Promise.resolve();
      const once = () => locked(key, task);
      const result = previous.then(once, once);
      const tail = result.catch(() => {});
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
  };
}

/** The queue's key for an operator's sends on a network. */
export function sendKey(network: string, operator: string): string {
  return `${network}:${operator.toLowerCase()}`;
}
