import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseHandle } from './client.ts';

export interface OpenDatabaseOptions {
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  /**
   * PGlite's buffer cache (Postgres `shared_buffers`, e.g. `16MB`) for this process only;
   * unset, the data dir's own setting. Ignored on Postgres.
   */
  readonly pgliteSharedBuffers?: string;
}

const PGLITE_FOLDER = 'pgdata';

export class DatabaseInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `the embedded database in ${dataDir} is in use by process ${pid}; stop it first, or point DATABASE_URL at Postgres to run several processes`,
    );
    this.name = 'DatabaseInUseError';
  }
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl !== null) {
    const { openPostgres } = await import('./postgres.ts');
    return openPostgres(options.databaseUrl);
  }
  mkdirSync(options.dataDir, { recursive: true });
  const releaseLock = lockDataDir(options.dataDir);
  try {
    const { openPglite, wrapPglite } = await import('./pglite.ts');
    const pglite = await openPglite(join(options.dataDir, PGLITE_FOLDER), {
      ...(options.pgliteSharedBuffers !== undefined && {
        sharedBuffers: options.pgliteSharedBuffers,
      }),
    });
    return wrapPglite(pglite, releaseLock);
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/**
 * PGlite is one process's database: two processes opening the same folder would corrupt it.
 * A lock file holding the owner's pid keeps the CLI from opening it under a running server.
 */
function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, `${PGLITE_FOLDER}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new DatabaseInUseError(dataDir, owner);
      }
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not lock ${path}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
