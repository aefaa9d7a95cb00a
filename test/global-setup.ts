import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPostgres, wrapPglite } from '../src/db/client.ts';
import { MIGRATIONS_FOLDER, migrateDatabase } from '../src/db/migrate.ts';

/**
 * Prepares one migrated database that every test file copies: a Postgres template database
 * when DATABASE_URL is set, otherwise a PGlite data-dir dump. Both are keyed by a hash of the
 * migrations, so a changed migration gets a fresh template.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    testDatabase:
      | { readonly kind: 'postgres'; readonly url: string; readonly template: string }
      | { readonly kind: 'pglite'; readonly dumpPath: string };
  }
}

export const TEST_DB_PREFIX = 'payreq_t_';

function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_FOLDER, { recursive: true }).map(String).sort()) {
    if (file.endsWith('.sql') || file.endsWith('.json')) {
      hash.update(file).update(readFileSync(join(MIGRATIONS_FOLDER, file)));
    }
  }
  return hash.digest('hex').slice(0, 12);
}

export default async function setup(project: TestProject): Promise<void> {
  const hash = migrationsHash();
  const url = process.env.DATABASE_URL;
  if (url) {
    const template = `payreq_tpl_${hash}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // Databases left behind by an interrupted run, and templates of older migrations.
      const stale = await admin.query<{ datname: string }>(
        `select datname from pg_database where (datname like $1 and datname <> $2) or datname like $3`,
        ['payreq_tpl_%', template, `${TEST_DB_PREFIX}%`],
      );
      for (const { datname } of stale.rows) {
        await admin.query(`drop database if exists "${datname}" with (force)`);
      }
      const exists = await admin.query('select 1 from pg_database where datname = $1', [template]);
      if (exists.rowCount === 0) {
        await admin.query(`create database "${template}"`);
        const handle = openPostgres(withDatabase(url, template), 1);
        await migrateDatabase(handle);
        await handle.close();
      }
    } finally {
      await admin.end();
    }
    project.provide('testDatabase', { kind: 'postgres', url, template });
    return;
  }
  const dumpPath = join(tmpdir(), `payreq-test-${hash}.tar`);
  const pglite = await PGlite.create();
  await migrateDatabase(wrapPglite(pglite));
  const dump = await pglite.dumpDataDir('none');
  writeFileSync(dumpPath, Buffer.from(await dump.arrayBuffer()));
  await pglite.close();
  project.provide('testDatabase', { kind: 'pglite', dumpPath });
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
