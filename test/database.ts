import { openAsBlob } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import type { DatabaseHandle } from '../src/db/client.ts';
import { startParamsWithSharedBuffers, wrapPglite } from '../src/db/pglite.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { testDatabaseName, withDatabase } from './global-setup.ts';

const TEST_SHARED_BUFFERS = '16MB';

/**
 * A fresh, migrated database of its own for a test file: a copy of the Postgres template when
 * DATABASE_URL is set, else an in-memory PGlite loaded from the prepared dump. Closing it
 * drops the copy.
 */
export async function openTestDatabase(): Promise<DatabaseHandle> {
  const source = inject('testDatabase');
  if (source.kind === 'pglite') {
    // A file-backed Blob: PGlite reads the whole dump through arrayBuffer(), which for a Blob
    // made from an in-memory Buffer costs seconds per file; from the file it is a plain read.
    const loadDataDir = await openAsBlob(source.dumpPath);
    // A test file's database holds a few MB: it needs no 128MB cache zeroed as it starts.
    const startParams = startParamsWithSharedBuffers(TEST_SHARED_BUFFERS);
    return wrapPglite(await PGlite.create({ loadDataDir, startParams }));
  }
  const name = testDatabaseName();
  await adminQuery(source.url, `create database "${name}" template "${source.template}"`);
  const handle = openPostgres(withDatabase(source.url, name), 5);
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await adminQuery(source.url, `drop database if exists "${name}" with (force)`);
    },
  };
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * An empty, unmigrated Postgres database (for tests of migrations and of processes that migrate
 * on start). `drop` removes it.
 */
export async function emptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const source = inject('testDatabase');
  if (source.kind !== 'postgres') throw new Error('no Postgres: DATABASE_URL is not set');
  const name = testDatabaseName();
  await adminQuery(source.url, `create database "${name}"`);
  return {
    url: withDatabase(source.url, name),
    drop: () => adminQuery(source.url, `drop database if exists "${name}" with (force)`),
  };
}
