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

/** The longest turn statements take, in milliseconds of the main thread. */
const TURN_MAX_MS = 16;

export type Turns = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * PGlite runs each statement synchronously on this thread, so statements take turns with the
 * rest of the event loop. libuv accepts one new connection per turn of the loop: when every
 * request in flight ran its next statement in the same turn (each merely waited for the next
 * one, with setImmediate), turns grew with the load, and at 100 connections opened at once the
 * last was accepted over a second later, whatever admission control decided. Here statements
 * run one after another in the order they asked, for a turn of one statement, or as long as the
 * rest of the loop took since the last turn (up to `maxMs`): between turns Node accepts a
 * connection, reads sockets, answers refusals and runs timers, and under a flood of refusals
 * the database still gets half the thread.
 */
export function createTurns(options: { maxMs?: number; now?: () => number } = {}): Turns {
  const { maxMs = TURN_MAX_MS, now = () => performance.now() } = options;
  const waiting: (() => void)[] = [];
  let scheduled = false;
  let turnEnds = 0;
  /** When the last turn gave the loop back with statements still waiting; null otherwise. */
  let yieldedAt: number | null = null;
  const next = () => {
    const go = waiting.shift();
    if (go) go();
    else scheduled = false;
  };
  const startTurn = () => {
    const started = now();
    turnEnds = started + (yieldedAt === null ? 0 : Math.min(maxMs, started - yieldedAt));
    yieldedAt = null;
    next();
  };
  return async (work) => {
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (!scheduled) {
        scheduled = true;
        setImmediate(startTurn);
      }
    });
    try {
      return await work();
    } finally {
      if (now() < turnEnds) next();
      else {
        yieldedAt = waiting.length > 0 ? now() : null;
        setImmediate(startTurn);
      }
    }
  };
}

function takingTurns(pglite: PGlite): PGlite {
  const turn = createTurns();
  const client: Pick<PGlite, 'query' | 'transaction' | 'exec'> = {
    query: (...args: Parameters<PGlite['query']>) => turn(() => pglite.query(...args)),
    transaction: (...args: Parameters<PGlite['transaction']>) =>
      turn(() => pglite.transaction(...args)),
    exec: (...args: Parameters<PGlite['exec']>) => turn(() => pglite.exec(...args)),
  } as Pick<PGlite, 'query' | 'transaction' | 'exec'>;
  return client as PGlite;
}

/** Wraps an open PGlite instance; `onClose` runs after the instance is closed. */
export function wrapPglite(pglite: PGlite, onClose: () => void = () => {}): DatabaseHandle {
  const db = drizzle({ client: takingTurns(pglite), schema, casing: 'snake_case' });
  return {
    db,
    queue: db,
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
