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
  RETRY_MAX_MS,
  receiver,
  register,
  setupDispatcherApps,
  startServer,
  TIMEOUT_MS,
  t,
} from '../../test/dispatcher.ts';
import { webhookDeliveries } from '../db/schema.ts';

/**
 * The dispatcher against real loopback servers that misbehave (test/dispatcher.ts): silence,
 * refused connections, redirects (the retry schedule itself: dispatcher-retries.test.ts).
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
      nextAttemptAt: fromNow(1_000),
    });
    const [first] = await attemptLog(id);
    expect(first).toMatchObject({
      attempt: 1,
      statusCode: null,
      error: `no answer within ${TIMEOUT_MS} ms`,
    });
    expect(first?.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);

    expect(await dispatcher.runOnce()).toBe(0); // not due yet
    t.clock.advance(1_000);
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
      nextAttemptAt: fromNow(1_000),
    });
    expect(row.lastError).toContain('ECONNREFUSED');
    t.clock.advance(1_000);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await deliveryRow(id)).toMatchObject({
      status: 'pending',
      attempts: 2,
      nextAttemptAt: fromNow(5_000),
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
