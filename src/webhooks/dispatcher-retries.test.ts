import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  attemptLog,
  deliver,
  deliveryRow,
  dispatcher,
  dispatcherFor,
  fromNow,
  receiver,
  register,
  setupDispatcherApps,
  startServer,
  t,
  tenant,
} from '../../test/dispatcher.ts';
import { createSecretBox } from '../base/secret-box.ts';
import { webhookDeliveries } from '../db/schema.ts';
import { createDispatcher } from './dispatcher.ts';

/**
 * The retry schedule, proved on the injected clock (test/dispatcher.ts: 30 s back-off, 2 min
 * cap, 10 min window): the reference's three retries 1 s, 5 s and 15 s after each failure,
 * exactly; then the longer back-off, the deployment's or the endpoint's own; then giving up.
 */

setupDispatcherApps();

/** Fails `id` until it is given up on; the delay before each retry, and the times of all. */
async function failUntilGivenUp(id: string) {
  const created = t.clock.now().getTime();
  const delays: number[] = [];
  const retryAt: number[] = [];
  for (let round = 0; round < 30; round++) {
    expect(await dispatcher.runOnce()).toBe(1);
    const row = await deliveryRow(id);
    if (row.status !== 'pending') break;
    delays.push(row.nextAttemptAt.getTime() - t.clock.now().getTime());
    retryAt.push(row.nextAttemptAt.getTime() - created);
    t.clock.set(row.nextAttemptAt);
  }
  return { delays, retryAt };
}

describe('retries', () => {
  it('retries 1 s, 5 s and 15 s after the first three failures, exactly, whatever the jitter', async () => {
    const failing = await startServer((_request, response) => response.writeHead(500).end());
    const webhookId = await register(failing.url);
    for (const random of [0, 0.5, 0.999_999]) {
      const id = await deliver(webhookId);
      const jittery = dispatcherFor(t, () => random);
      const delays: number[] = [];
      for (let attempt = 1; attempt <= 3; attempt++) {
        const failedAt = t.clock.now().getTime();
        expect(await jittery.runOnce()).toBe(1);
        const row = await deliveryRow(id);
        expect(row).toMatchObject({ status: 'pending', attempts: attempt });
        delays.push(row.nextAttemptAt.getTime() - failedAt);
        // Not a millisecond early.
        t.clock.set(new Date(row.nextAttemptAt.getTime() - 1));
        expect(await jittery.runOnce()).toBe(0);
        t.clock.advance(1);
      }
      expect(delays, String(random)).toEqual([1_000, 5_000, 15_000]);
      await t.db
        .update(webhookDeliveries)
        .set({ status: 'failed' })
        .where(eq(webhookDeliveries.id, id));
    }
  });

  it('then doubles the delay from WEBHOOK_RETRY_BASE_MS up to WEBHOOK_RETRY_MAX_MS', async () => {
    const failing = await startServer((_request, response) => response.writeHead(500).end());
    const id = await deliver(await register(failing.url));
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 7; attempt++) {
      expect(await dispatcher.runOnce()).toBe(1);
      const row = await deliveryRow(id);
      expect(row.attempts).toBe(attempt);
      delays.push(row.nextAttemptAt.getTime() - t.clock.now().getTime());
      t.clock.set(row.nextAttemptAt);
    }
    expect(delays).toEqual([1_000, 5_000, 15_000, 30_000, 60_000, 120_000, 120_000]);
  });

  it('keeps the jitter of the longer back-off within 20% either side', async () => {
    const failing = await startServer((_request, response) => response.writeHead(503).end());
    const webhookId = await register(failing.url);
    for (const [random, delay] of [
      [0, 24_000],
      [0.25, 27_000],
      [0.999_999, 36_000],
    ] as const) {
      const id = await deliver(webhookId);
      const jittery = dispatcherFor(t, () => random);
      for (const wait of [1_000, 5_000, 15_000]) {
        expect(await jittery.runOnce()).toBe(1);
        t.clock.advance(wait);
      }
      expect(await jittery.runOnce()).toBe(1);
      expect((await deliveryRow(id)).nextAttemptAt, String(random)).toEqual(fromNow(delay));
      await t.db
        .update(webhookDeliveries)
        .set({ status: 'failed' })
        .where(eq(webhookDeliveries.id, id));
    }
  });

  it('follows the endpoint’s own retry policy after the reference’s three retries', async () => {
    const endpoint = await receiver();
    endpoint.respondWith(...Array<number>(30).fill(500));
    const webhookId = await register(endpoint.url, tenant, {
      backoffSeconds: 60,
      maxDelaySeconds: 300,
      retryForSeconds: 1_200,
    });
    const id = await deliver(webhookId);
    const { delays, retryAt } = await failUntilGivenUp(id);
    expect(delays).toEqual([1_000, 5_000, 15_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
    expect(retryAt).toEqual([1_000, 6_000, 21_000, 81_000, 201_000, 441_000, 741_000, 1_041_000]);
    expect(await deliveryRow(id)).toMatchObject({ status: 'failed', attempts: 9 });
    // The retry count goes on past the reference's 3.
    expect(endpoint.received.map((r) => r.headers['x-request-network-retry-count'])).toEqual([
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
    ]);
  });

  it('stops after the reference’s three retries when the endpoint’s retryForSeconds is 0', async () => {
    const endpoint = await receiver();
    endpoint.respondWith(...Array<number>(10).fill(500));
    const id = await deliver(await register(endpoint.url, tenant, { retryForSeconds: 0 }));
    const { retryAt } = await failUntilGivenUp(id);
    expect(retryAt).toEqual([1_000, 6_000, 21_000]);
    expect(await deliveryRow(id)).toMatchObject({ status: 'failed', attempts: 4 });
    expect(endpoint.received.map((r) => r.headers['x-request-network-retry-count'])).toEqual([
      '0',
      '1',
      '2',
      '3',
    ]);
  });

  it('records a send that cannot start (a secret sealed under another key) and gives up in time', async () => {
    const endpoint = await receiver();
    const id = await deliver(await register(endpoint.url));
    // As after SECRET_KEY changed: the sealed secret no longer opens.
    const rekeyed = createDispatcher({
      db: t.db,
      clock: t.clock,
      logger: t.app.log as never,
      secretBox: createSecretBox(randomBytes(32)),
      config: t.config.webhooks,
      random: () => 0.5,
    });
    expect(await rekeyed.runOnce()).toBe(1);
    const first = await deliveryRow(id);
    expect(first).toMatchObject({ status: 'pending', attempts: 1, lockedUntil: null });
    expect(first.lastError).toMatch(/^not sent: /);
    expect(first.nextAttemptAt.getTime()).toBe(fromNow(1_000).getTime());
    for (let round = 0; round < 20 && (await deliveryRow(id)).status === 'pending'; round++) {
      t.clock.set((await deliveryRow(id)).nextAttemptAt);
      expect(await rekeyed.runOnce()).toBe(1);
    }
    expect(await deliveryRow(id)).toMatchObject({ status: 'failed', attempts: 10 });
    expect(await attemptLog(id)).toHaveLength(10);
    expect(endpoint.received).toHaveLength(0);
  });

  it('marks a delivery failed once WEBHOOK_RETRY_FOR_MS has passed, and stops retrying', async () => {
    const endpoint = await receiver();
    endpoint.respondWith(...Array<number>(20).fill(500));
    const webhookId = await register(endpoint.url);
    const id = await deliver(webhookId);
    const { retryAt } = await failUntilGivenUp(id);
    // 1, 5, 15 s, then 30 s doubling to 2 min (the cap), until the next try would fall past
    // 10 min.
    expect(retryAt).toEqual([
      1_000, 6_000, 21_000, 51_000, 111_000, 231_000, 351_000, 471_000, 591_000,
    ]);
    const row = await deliveryRow(id);
    expect(row).toMatchObject({
      status: 'failed',
      attempts: 10,
      lastStatusCode: 500,
      lastError: 'HTTP 500',
      deliveredAt: null,
    });
    expect(endpoint.received.map((r) => r.headers['x-service-retry-count'])).toEqual(
      Array.from({ length: 10 }, (_, i) => String(i)),
    );
    expect(await attemptLog(id)).toHaveLength(10);
    expect(
      t.logs
        .entries()
        .filter((e) => e.msg === 'webhook delivery failed for good' && e.deliveryId === id),
    ).toHaveLength(1);

    t.clock.advance(24 * 60 * 60_000);
    expect(await dispatcher.runOnce()).toBe(0);
    expect(endpoint.received).toHaveLength(10);
    const log = await t.app.inject({
      method: 'GET',
      url: `/v1/webhook/${webhookId}/deliveries`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(log.json().deliveries[0]).toMatchObject({ id, status: 'failed', nextAttemptAt: null });
  });
});
