import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LogCapture, testConfig } from '../test/app.ts';
import { copyMigratedDatabase } from '../test/process.ts';
import { createAccount } from './auth/accounts.ts';
import { createLogger } from './base/logger.ts';
import { StartError } from './base/start-error.ts';
import { uuidV7 } from './base/uuid-v7.ts';
import { payers } from './db/schema/payers.ts';
import { createService } from './main.ts';

describe('graceful stop', () => {
  it('finishes in-flight requests, refuses new ones, then closes the database', async () => {
    const config = testConfig({ PORT: '0', HOST: '127.0.0.1' });
    copyMigratedDatabase(config.dataDir);
    const service = await createService(config, createLogger('warn', new LogCapture()));
    let entered: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => {
      entered = resolve;
    });
    service.app.get('/test/slow', async () => {
      entered();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { finished: true };
    });
    const port = await service.listen();
    const base = `http://127.0.0.1:${port}`;

    const slow = fetch(`${base}/test/slow`);
    await inFlight;
    const stopped = service.stop();
    const res = await slow;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ finished: true });
    await stopped;

    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    await expect(service.database.ping()).rejects.toThrow();
    expect(existsSync(join(config.dataDir, 'pgdata.lock'))).toBe(false);
    await service.stop(); // idempotent
  });
});

describe('a stop with a drain (SHUTDOWN_DRAIN_MS)', () => {
  it('answers /readyz 503 shutting_down while serving on, then closes', async () => {
    // Long enough for the requests below on a busy machine; the stop waits it out.
    const config = testConfig({ PORT: '0', HOST: '127.0.0.1', SHUTDOWN_DRAIN_MS: '6000' });
    copyMigratedDatabase(config.dataDir);
    const service = await createService(config, createLogger('warn', new LogCapture()));
    const base = `http://127.0.0.1:${await service.listen()}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    const stopped = service.stop();
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      code: 'shutting_down',
      message: 'Not ready: shutting down',
      status: 'not_ready',
    });
    // The reference's health checks answer as readiness does; everything else still serves.
    expect((await fetch(`${base}/v2/health`)).status).toBe(503);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/v2/currencies?id=USDC-base`)).status).toBe(200);
    await stopped;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  }, 60_000);
});

describe('a stop step that fails', () => {
  it('still runs the later steps, closes the database, and reports the failure', async () => {
    const config = testConfig({ PORT: '0', HOST: '127.0.0.1' });
    copyMigratedDatabase(config.dataDir);
    const service = await createService(config, createLogger('warn', new LogCapture()));
    service.app.addHook('onClose', async () => {
      throw new Error('a plugin would not close');
    });
    await service.listen();
    await expect(service.stop()).rejects.toThrow('a plugin would not close');
    await expect(service.database.ping()).rejects.toThrow();
    expect(existsSync(join(config.dataDir, 'pgdata.lock'))).toBe(false);
  });
});

describe('a start with personal data sealed under a key it lacks', () => {
  it('refuses to start, naming the missing key ids and DATA_KEYS', async () => {
    const config = testConfig({ PORT: '0', HOST: '127.0.0.1' });
    copyMigratedDatabase(config.dataDir);
    const first = await createService(config, createLogger('warn', new LogCapture()));
    const { accountId } = await createAccount(first.database.db, 'Keys');
    for (const keyId of ['k2', 'k2', 'k3']) {
      const id = uuidV7();
      await first.database.db
        .insert(payers)
        .values({ id, accountId, clientUserId: id, personal: 'k1.x.y.z.w', keyId });
    }
    await first.stop();
    await expect(createService(config, createLogger('warn', new LogCapture()))).rejects.toThrow(
      new StartError(
        'personal data is sealed under key id(s) k2 (2 row(s)), k3 (1 row(s)), which neither DATA_KEYS nor SECRET_KEY gives; add each as id:key to DATA_KEYS (the key it was sealed with), then start again',
      ),
    );
    expect(existsSync(join(config.dataDir, 'pgdata.lock'))).toBe(false);
  });
});
