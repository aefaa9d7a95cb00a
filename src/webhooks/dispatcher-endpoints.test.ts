import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../test/app.ts';
import {
  attemptLog,
  deliver,
  deliveriesTo,
  deliverMany,
  deliveryRow,
  dispatcher,
  dispatcherFor,
  RETRY_FOR_MS,
  receiver,
  register,
  setupDispatcherApps,
  strictApp,
  t,
  tenant,
} from '../../test/dispatcher.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { ulid } from '../base/ulid.ts';
import { webhooks } from '../db/schema.ts';
import type { Dispatcher } from './dispatcher.ts';

/**
 * What the dispatcher must not send, or must send only once (test/dispatcher.ts): deliveries to
 * endpoints switched off, to addresses it must not reach, and two dispatchers racing for the
 * same outbox.
 */

setupDispatcherApps({ strict: true });

describe('endpoints that are switched off', () => {
  it.each([
    ['deactivated', 'PUT', { active: false }],
    ['deleted', 'DELETE', undefined],
  ] as const)(
    'marks a delivery of a %s webhook failed without sending it',
    async (_state, method, payload) => {
      const endpoint = await receiver();
      const webhookId = await register(endpoint.url);
      const id = await deliver(webhookId);
      const res = await t.app.inject({
        method,
        url: `/v1/webhook/${webhookId}`,
        headers: { 'x-api-key': tenant.apiKey },
        ...(payload && { payload }),
      });
      expect(res.statusCode, res.body).toBe(200);

      expect(await dispatcher.runOnce()).toBe(1);
      expect(await deliveryRow(id)).toMatchObject({
        status: 'failed',
        lastError: 'the endpoint is inactive or deleted',
        lockedUntil: null,
        deliveredAt: null,
      });
      t.clock.advance(RETRY_FOR_MS);
      expect(await dispatcher.runOnce()).toBe(0);
      expect(endpoint.received).toEqual([]);
    },
  );
});

describe('with ALLOW_LOCAL_WEBHOOKS off', () => {
  let strict: TestApp;
  let strictTenant: Tenant;
  let strictDispatcher: Dispatcher;
  beforeAll(async () => {
    strict = strictApp();
    strictTenant = await createTenant(strict.db, 'Production');
    strictDispatcher = dispatcherFor(strict);
  });

  /** A row registration would refuse, as left by an earlier setting or written by hand. */
  async function insertWebhook(url: string): Promise<string> {
    const id = `whk_${ulid()}`;
    const now = strict.clock.now();
    await strict.db.insert(webhooks).values({
      id,
      accountId: strictTenant.accountId,
      url,
      secretSealed: strict.secretBox.seal(`whsec_${randomBytes(32).toString('base64url')}`, id),
      createdAt: now,
      updatedAt: now,
    });
    return id;
  }

  it.each([
    [
      'a loopback name',
      (port: number) => `http://localhost:${port}/hooks`,
      'localhost resolves only to private addresses',
    ],
    [
      'a loopback address',
      (port: number) => `http://127.0.0.1:${port}/hooks`,
      '127.0.0.1 is a private address',
    ],
    [
      'an IPv4-mapped loopback address',
      (port: number) => `http://[::ffff:127.0.0.1]:${port}/hooks`,
      '::ffff:7f00:1 is a private address',
    ],
  ] as const)('never contacts %s; the attempt log says why', async (_kind, urlFor, error) => {
    const endpoint = await receiver();
    const port = Number(new URL(endpoint.url).port);
    const id = await deliver(await insertWebhook(urlFor(port)), strict);

    expect(await strictDispatcher.runOnce()).toBe(1);
    expect(endpoint.received).toEqual([]);
    expect(await deliveryRow(id, strict)).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: null,
      lastError: error,
    });
    expect((await attemptLog(id, strict)).map((a) => a.error)).toEqual([error]);

    // The receiver was up and takes a delivery where local webhooks are allowed: only the
    // policy kept the first one away. (Its 127.0.0.1 URL, so this holds without IPv6.)
    const allowed = await register(endpoint.url);
    await deliver(allowed);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await endpoint.waitFor(1)).toHaveLength(1);
  });
});

describe('two dispatchers on one outbox', () => {
  it('send 30 due deliveries exactly once between them', async () => {
    const endpoint = await receiver();
    const webhookId = await register(endpoint.url);
    const ids = await deliverMany(webhookId, 30);
    expect(new Set(ids).size).toBe(30);
    const [a, b] = [dispatcherFor(t), dispatcherFor(t)];

    const claimed: number[] = [];
    for (let round = 0; round < 5; round++) {
      const counts = await Promise.all([a.runOnce(), b.runOnce()]);
      claimed.push(...counts);
      if (counts.every((count) => count === 0)) break;
    }
    expect(claimed.reduce((sum, n) => sum + n, 0)).toBe(30);
    expect(endpoint.received).toHaveLength(30);
    const sent = endpoint.received.map((r) => String(r.headers['x-service-delivery']));
    expect(new Set(sent)).toEqual(new Set(ids));
    expect(endpoint.received.every((r) => r.headers['x-service-retry-count'] === '0')).toBe(true);
    expect(new Set(endpoint.received.map((r) => r.body.n)).size).toBe(30);

    const rows = await deliveriesTo(webhookId);
    expect(rows.every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
    const attempts = await Promise.all(ids.map((id) => attemptLog(id)));
    expect(attempts.every((log) => log.length === 1)).toBe(true);
  });
});
