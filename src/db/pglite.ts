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
    // Zeroing the buffer cache is about half of PGlite's start (128MB, the data dir's setting:
    // 0.5 s), so a process that runs a few queries and exits asks for less. The setting lives
    // only as long as the process; the data dir keeps its own for the next one.
    ...(options.sharedBuffers !== undefined && {
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.sharedBuffers}`],
    }),
  });
}

/** Wraps an open PGlite instance; `onClose` runs after the instance is closed. */
export function wrapPglite(pglite: PGlite, onClose: () => void = () => {}): DatabaseHandle {
  const db = drizzle({ client: pglite, schema, casing: 'snake_case' });
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
