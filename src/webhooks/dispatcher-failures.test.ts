import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  attemptLog,
  deliver,
  deliveryRow,
  dispatcher,
  dispatcherFor,
  fromNow,
  LEASE_MS,
  RETRY_BASE_MS,
  RETRY_MAX_MS,
  receiver,
  register,
  setupDispatcherApps,
  startServer,
  TIMEOUT_MS,
  t,
  tenant,
} from '../../test/dispatcher.ts';
import { createSecretBox } from '../base/secret-box.ts';
import { webhookDeliveries } from '../db/schema.ts';
import { createDispatcher } from './dispatcher.ts';

/**
 * The dispatcher against real loopback servers that misbehave (test/dispatcher.ts): silence,
 * refused connections, redirects, and endless failure, retried until it gives up.
 */

setupDispatcherApps();

/** A loopback port with nothing listening: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a receiver that does not answer', () => {
  it('fails the attempt after WEBHOOK_TIMEOUT_MS and retries the delivery later', async () => {
    const silent = await startServer(() => {}); // reads the request, never answers
    const id = await deliver(await register(silent.url));

    const began = performance.now();
    expect(await dispatcher.runOnce()).toBe(1);
    const elapsed = performance.now() - began;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 2_000);
    expect(silent.paths).toEqual(['/hooks']);
    expect(await deliveryRow(id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: null,
      lastError: `no answer within ${TIMEOUT_MS} ms`,
      lockedUntil: null,
      nextAttemptAt: fromNow(RETRY_BASE_MS),
    });
    const [first] = await attemptLog(id);
    expect(first).toMatchObject({
      attempt: 1,
      statusCode: null,
      error: `no answer within ${TIMEOUT_MS} ms`,
    });
    expect(first?.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);

    expect(await dispatcher.runOnce()).toBe(0); // not due yet
    t.clock.advance(RETRY_BASE_MS);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(silent.paths).toEqual(['/hooks', '/hooks']);
    expect(await deliveryRow(id)).toMatchObject({ status: 'pending', attempts: 2 });
  });

  it('times out a receiver that sends its headers but never finishes the body', async () => {
    const trickle = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('working on it');
    });
    const id = await deliver(await register(trickle.url));
    expect(await dispatcher.runOnce()).toBe(1);
    // A 200 whose body never ends is not a delivery.
    expect(await deliveryRow(id)).toMatchObject({
      status: 'pending',
      lastStatusCode: null,
      lastError: `no answer within ${TIMEOUT_MS} ms`,
      deliveredAt: null,
    });
  });

  it('leaves a claimed delivery to its dispatcher while the attempt is in flight', async () => {
    const silent = await startServer(() => {});
    const id = await deliver(await register(silent.url));
    const other = dispatcherFor(t);
    const inFlight = dispatcher.runOnce();
    while (silent.paths.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await other.runOnce()).toBe(0);
    expect(await inFlight).toBe(1);
    expect(silent.paths).toHaveLength(1);
    expect(await attemptLog(id)).toHaveLength(1);
  });

  it('retries a delivery whose dispatcher died mid-attempt once the lease runs out', async () => {
    const endpoint = await receiver();
    const id = await deliver(await register(endpoint.url));
    // What a claim leaves behind when its process dies before recording the outcome.
    await t.db
      .update(webhookDeliveries)
      .set({ attempts: 1, lockedUntil: fromNow(LEASE_MS) })
      .where(eq(webhookDeliveries.id, id));
    expect(await dispatcher.runOnce()).toBe(0);
    t.clock.advance(LEASE_MS - 1);
    expect(await dispatcher.runOnce()).toBe(0);
    t.clock.advance(1);
    expect(await dispatcher.runOnce()).toBe(1);
    const [received] = await endpoint.waitFor(1);
    expect(received?.headers['x-service-delivery']).toBe(id);
    expect(received?.headers['x-service-retry-count']).toBe('1');
    expect(await deliveryRow(id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });
});

describe('a receiver that cannot be reached or refuses', () => {
  it('retries after a refused connection', async () => {
    const port = await closedPort();
    const id = await deliver(await register(`http://127.0.0.1:${port}/hooks`));
    expect(await dispatcher.runOnce()).toBe(1);
    const row = await deliveryRow(id);
    expect(row).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: null,
      nextAttemptAt: fromNow(RETRY_BASE_MS),
    });
    expect(row.lastError).toContain('ECONNREFUSED');
    t.clock.advance(RETRY_BASE_MS);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await deliveryRow(id)).toMatchObject({
      status: 'pending',
      attempts: 2,
      nextAttemptAt: fromNow(2 * RETRY_BASE_MS),
    });
    expect((await attemptLog(id)).map((a) => a.statusCode)).toEqual([null, null]);
  });

  it('treats a 3xx as a failed attempt and never follows the redirect', async () => {
    const statuses = [301, 302, 303, 307, 308, 200];
    const redirecting = await startServer((_request, response) => {
      const status = statuses.shift() ?? 200;
      response.writeHead(status, status < 400 ? { location: '/elsewhere' } : {}).end();
    });
    const id = await deliver(await register(redirecting.url));
    for (const status of [301, 302, 303, 307, 308]) {
      expect(await dispatcher.runOnce()).toBe(1);
      expect(await deliveryRow(id), String(status)).toMatchObject({
        status: 'pending',
        lastStatusCode: status,
        lastError: `HTTP ${status}`,
        deliveredAt: null,
      });
      t.clock.advance(RETRY_MAX_MS);
    }
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await deliveryRow(id)).toMatchObject({ status: 'delivered', lastStatusCode: 200 });
    expect(redirecting.paths).toEqual(Array(6).fill('/hooks'));
    expect((await attemptLog(id)).map((a) => [a.statusCode, a.error])).toEqual([
      [301, 'HTTP 301'],
      [302, 'HTTP 302'],
      [303, 'HTTP 303'],
      [307, 'HTTP 307'],
      [308, 'HTTP 308'],
      [200, null],
    ]);
  });

  it('counts any 2xx as delivered', async () => {
    const endpoint = await receiver();
    const webhookId = await register(endpoint.url);
    for (const status of [201, 202, 204, 299]) {
      endpoint.respondWith(status);
      const id = await deliver(webhookId);
      expect(await dispatcher.runOnce()).toBe(1);
      expect(await deliveryRow(id), String(status)).toMatchObject({
        status: 'delivered',
        attempts: 1,
        lastStatusCode: status,
        lastError: null,
        deliveredAt: t.clock.now(),
      });
    }
  });
});

describe('retries', () => {
  it('doubles the delay after each failure, up to WEBHOOK_RETRY_MAX_MS', async () => {
    const failing = await startServer((_request, response) => response.writeHead(500).end());
    const id = await deliver(await register(failing.url));
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      expect(await dispatcher.runOnce()).toBe(1);
      const row = await deliveryRow(id);
      expect(row.attempts).toBe(attempt);
      delays.push(row.nextAttemptAt.getTime() - t.clock.now().getTime());
      t.clock.set(row.nextAttemptAt);
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  });

  it('keeps the jitter within 20% either side of the backoff', async () => {
    const failing = await startServer((_request, response) => response.writeHead(503).end());
    const webhookId = await register(failing.url);
    for (const [random, delay] of [
      [0, 800],
      [0.25, 900],
      [0.999_999, 1_200],
    ] as const) {
      const id = await deliver(webhookId);
      expect(await dispatcherFor(t, () => random).runOnce()).toBe(1);
      expect((await deliveryRow(id)).nextAttemptAt, String(random)).toEqual(fromNow(delay));
    }
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
    expect(first.nextAttemptAt.getTime()).toBe(fromNow(RETRY_BASE_MS).getTime());
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
    const created = t.clock.now().getTime();

    const retryAt: number[] = [];
    for (let round = 0; round < 20; round++) {
      expect(await dispatcher.runOnce()).toBe(1);
      const row = await deliveryRow(id);
      if (row.status !== 'pending') break;
      retryAt.push(row.nextAttemptAt.getTime() - created);
      t.clock.set(row.nextAttemptAt);
    }
    // 1, 2, 4, 8 s, then 8 s each (the cap), until the next try would fall past 60 s.
    expect(retryAt).toEqual([1_000, 3_000, 7_000, 15_000, 23_000, 31_000, 39_000, 47_000, 55_000]);
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
