import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { systemClock } from '../src/base/clock.ts';
import { createKeyRing } from '../src/base/key-ring.ts';
import { createLogger } from '../src/base/logger.ts';
import { createSecretBox } from '../src/base/secret-box.ts';
import { createChainClients } from '../src/chains/clients.ts';
import { createChainRegistry } from '../src/chains/registry.ts';
import { parseConfig } from '../src/config/config.ts';
import type { DatabaseHandle } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { startParamsWithSharedBuffers, wrapPglite } from '../src/db/pglite.ts';
import { buildApp } from '../src/server/app.ts';

/**
 * The OpenAPI document the server serves at `/openapi.json`, built as the server builds it but
 * without listening: the typed client's types are generated from it
 * (packages/client/scripts/generate.ts). The application needs a migrated database to start (it
 * creates the pay page's client ID), so it gets a throwaway in-memory one; the configuration
 * is the defaults, which serve every documented route. `BASE_URL` only fills `servers`. A
 * test passes a migrated database of its own (and closes it).
 */
export async function openApiDocument(migrated?: DatabaseHandle): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'payreq-openapi-'));
  const config = parseConfig({
    DATA_DIR: dataDir,
    BASE_URL: 'http://localhost:8080',
    SANDBOX: 'false',
    LOG_LEVEL: 'silent',
  });
  const database =
    migrated ??
    wrapPglite(await PGlite.create({ startParams: startParamsWithSharedBuffers('16MB') }));
  try {
    if (migrated === undefined) await migrateDatabase(database);
    const chains = createChainRegistry(config);
    const { app } = await buildApp({
      config,
      chains,
      clients: createChainClients({ config, chains }),
      secretBox: createSecretBox(randomBytes(32)),
      keyRing: createKeyRing({ defaultKey: randomBytes(32) }),
      database,
      logger: createLogger('silent'),
      clock: systemClock,
    });
    try {
      await app.ready();
      return app.swagger() as unknown as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    if (migrated === undefined) await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
