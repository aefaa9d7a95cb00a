import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import type { DatabaseHandle } from './client.ts';
import * as schema from './schema.ts';

/**
 * The embedded engine (PGlite in `DATA_DIR`). A module of its own so that a process on Postgres
 * never loads PGlite and its drizzle driver, and the reverse.
 */

/** Opens the PGlite database in `folder`, creating it if needed. */
export async function openPglite(
  folder: string,
  options: { readonly sharedBuffers?: string } = {},
): Promise<PGlite> {
  return PGlite.create({
    dataDir: folder,
    ...(options.sharedBuffers !== undefined && {
      startParams: startParamsWithSharedBuffers(options.sharedBuffers),
    }),
  });
}

/**
 * PGlite's start parameters with a buffer cache (`shared_buffers`) of `size` for this instance
 * only. Zeroing the cache is about half of PGlite's start (the default 128MB: 0.5 s), so an
 * instance that runs a few queries and exits, or holds a few MB, asks for less; a data dir
 * keeps its own setting for the next process.
 */
export function startParamsWithSharedBuffers(size: string): string[] {
  return [...PGlite.defaultStartParams, '-c', `shared_buffers=${size}`];
}

const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * PGlite runs each statement synchronously on this thread and settles its promise at once, so
 * a burst of requests would run start to finish in one stretch of microtasks while new
 * connections, timers and the admission gate's deadlines wait behind it. Yielding to the event
 * loop before each statement (and each transaction) lets them in between: new requests reach
 * admission control as they arrive, and a request that has waited too long is refused on time.
 */
function yielding(pglite: PGlite): PGlite {
  const client: Pick<PGlite, 'query' | 'transaction' | 'exec'> = {
    query: async (...args: Parameters<PGlite['query']>) => {
      await yieldToIo();
      return pglite.query(...args);
    },
    transaction: async (...args: Parameters<PGlite['transaction']>) => {
      await yieldToIo();
      return pglite.transaction(...args);
    },
    exec: async (...args: Parameters<PGlite['exec']>) => {
      await yieldToIo();
      return pglite.exec(...args);
    },
  } as Pick<PGlite, 'query' | 'transaction' | 'exec'>;
  return client as PGlite;
}

/** Wraps an open PGlite instance; `onClose` runs after the instance is closed. */
export function wrapPglite(pglite: PGlite, onClose: () => void = () => {}): DatabaseHandle {
  const db = drizzle({ client: yielding(pglite), schema, casing: 'snake_case' });
  return {
    db,
    kind: 'pglite',
    engine: { kind: 'pglite', pglite },
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: async () => {
      if (!pglite.closed) await pglite.close();
      onClose();
    },
  };
}
