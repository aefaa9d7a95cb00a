import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { buildServer } from '../scripts/build-server.ts';
import { buildWebApp, WEB_APPS } from '../scripts/build-web-app.ts';
import { MIGRATIONS_FOLDER, migrateDatabase } from '../src/db/migrate.ts';
import { startParamsWithSharedBuffers, wrapPglite } from '../src/db/pglite.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { chromiumOfSystem } from './browser.ts';

/**
 * Builds the browser apps into dist/ (scripts/build-web-app.ts), fresh for every run (the apps
 * under test serve them), and the server bundle into dist/server when it is not current (the
 * processes under test run it),
 * and prepares one migrated database that every test file copies: a Postgres template database
 * when DATABASE_URL is set, otherwise a PGlite data-dir dump. Both are keyed by a hash of the
 * migrations, so a changed migration gets a fresh template.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    testDatabase:
      | { readonly kind: 'postgres'; readonly url: string; readonly template: string }
      | { readonly kind: 'pglite'; readonly dumpPath: string };
    /** A migrated embedded database folder (`DATA_DIR/pgdata`), for processes to start on. */
    migratedPgdata: string;
  }
}

export const TEST_DB_PREFIX = 'payreq_t_';
const TEMPLATE_LOCK = 0x7061_7972;
/** A test database older than this was left by a run that did not finish. */
const STALE_AFTER_MS = 6 * 60 * 60_000;

/** `payreq_t_<base-36 creation time>_<random>`: the name says when it was made. */
export function testDatabaseName(now = Date.now()): string {
  return `${TEST_DB_PREFIX}${now.toString(36)}_${randomBytes(4).toString('hex')}`;
}

function isStaleTestDatabase(name: string, now = Date.now()): boolean {
  if (!name.startsWith(TEST_DB_PREFIX)) return false;
  const time = /^[0-9a-z]+_[0-9a-f]{8}$/.test(name.slice(TEST_DB_PREFIX.length))
    ? Number.parseInt(name.slice(TEST_DB_PREFIX.length), 36)
    : Number.NaN;
  // A name in no known shape comes from an older checkout: stale.
  return Number.isNaN(time) || now - time > STALE_AFTER_MS;
}

function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_FOLDER, { recursive: true }).map(String).sort()) {
    if (file.endsWith('.sql') || file.endsWith('.json')) {
      hash.update(file).update(readFileSync(join(MIGRATIONS_FOLDER, file)));
    }
  }
  return hash.digest('hex').slice(0, 12);
}

/**
 * The packaged Chromium (test/browser.ts) unpacks itself to /tmp on first use: done here, once,
 * so two test files starting at once never both write the binary while the other runs it
 * (ETXTBSY). Nothing to do with a system Chromium.
 */
async function unpackChromium(): Promise<void> {
  if (chromiumOfSystem() !== undefined) return;
  const { default: packaged } = await import('@sparticuz/chromium');
  await packaged.executablePath();
}

export default async function setup(project: TestProject): Promise<() => void> {
  const url = process.env.DATABASE_URL;
  // esbuild builds the page in processes of its own while PGlite migrates here. The server
  // bundle too, once, before test files run two at a time: the `npm start` of two at once would
  // otherwise both build it while the other's server loads it.
  const [, { pgdataRoot, migratedPgdata, dump }] = await Promise.all([
    buildServer(),
    migrateEmbeddedDatabase({ dump: !url }),
    ...WEB_APPS.map((app) => buildWebApp(app)),
    unpackChromium(),
  ]);
  project.provide('migratedPgdata', migratedPgdata);
  const removePgdata = () => rmSync(pgdataRoot, { recursive: true, force: true });
  const hash = migrationsHash();
  if (url) {
    const template = `payreq_tpl_${hash}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // One run at a time prepares templates: another run (CI beside a developer) may be
      // creating the same one.
      await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
      // Test databases of an interrupted run: only old ones, as a younger one may belong to a
      // run still going on beside this one.
      const names = await admin.query<{ datname: string }>(
        'select datname from pg_database where datname like $1 or datname like $2',
        [`${TEST_DB_PREFIX}%`, 'payreq_tpl_%'],
      );
      const running = names.rows.filter(({ datname }) => !isStaleTestDatabase(datname));
      for (const { datname } of names.rows) {
        const staleCopy = isStaleTestDatabase(datname);
        // Templates of other migrations go only when no run may still be copying them.
        const oldTemplate =
          datname.startsWith('payreq_tpl_') && datname !== template && running.length === 0;
        if (staleCopy || oldTemplate) {
          await admin.query(`drop database if exists "${datname}" with (force)`);
        }
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
    return removePgdata;
  }
  if (!dump) throw new Error('no dump of the embedded database');
  // One dump per run: test files read it as a file-backed Blob (test/database.ts), which fails
  // if another run beside this one rewrites the file meanwhile.
  const dumpPath = join(tmpdir(), `payreq-test-${hash}-${process.pid}.tar`);
  writeFileSync(dumpPath, Buffer.from(await dump.arrayBuffer()));
  project.provide('testDatabase', { kind: 'pglite', dumpPath });
  return () => {
    rmSync(dumpPath, { force: true });
    removePgdata();
  };
}

/**
 * A created and migrated embedded database folder: processes on the embedded database
 * (test/process.ts) start from a copy of it when their test is not about a first start
 * (creating and migrating one costs seconds each time). With `dump`, also its data dir as a
 * tarball, which each test file on PGlite loads in memory: one migration serves both.
 */
async function migrateEmbeddedDatabase(options: { readonly dump: boolean }): Promise<{
  pgdataRoot: string;
  migratedPgdata: string;
  dump: File | Blob | null;
}> {
  const pgdataRoot = mkdtempSync(join(tmpdir(), 'payreq-test-pgdata-'));
  const migratedPgdata = join(pgdataRoot, 'pgdata');
  const onDisk = await PGlite.create({
    dataDir: migratedPgdata,
    startParams: startParamsWithSharedBuffers('16MB'),
  });
  try {
    await migrateDatabase(wrapPglite(onDisk));
    const dump = options.dump ? await onDisk.dumpDataDir('none') : null;
    return { pgdataRoot, migratedPgdata, dump };
  } finally {
    await onDisk.close();
  }
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
