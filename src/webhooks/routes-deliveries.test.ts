import { eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import type { Receiver } from '../../test/webhook-receiver.ts';
import {
  asBackend,
  asBrowser,
  call,
  DELIVERY_NOT_FOUND,
  dispatcher,
  receiver,
  register,
  setupWebhookApps,
  t,
  validationFailed,
} from '../../test/webhook-routes.ts';
import { webhookDeliveries } from '../db/schema.ts';

/**
 * The delivery log of a `/v1/webhook` endpoint and redelivery, through the real app and a
 * dispatcher sending to real loopback receivers.
 */

setupWebhookApps();

describe('the delivery log and redelivery', () => {
  let tenant: Tenant;
  let endpoint: Receiver;
  let other: Receiver;
  let hookId: string;
  let otherHookId: string;
  let start: Date;
  /** Oldest first: confirmed (refused once with 500), partial, failed. */
  let ids: string[];

  beforeAll(async () => {
    tenant = await createTenant(t.db, 'Logger');
    [endpoint, other] = await Promise.all([receiver(), receiver()]);
    hookId = (await register(asBackend(tenant), endpoint.url)).id;
    otherHookId = (await register(asBrowser(tenant), other.url)).id;
    start = t.clock.now();
    ids = [];
    endpoint.respondWith(500);
    ids.push(await sendTest('payment.confirmed'));
    expect(await dispatcher.runOnce()).toBe(1);
    // Within the first retry's second, so the first is not due again yet.
    t.clock.advance(300);
    ids.push(await sendTest('payment.partial'));
    t.clock.advance(300);
    ids.push(await sendTest('payment.failed'));
    expect(await dispatcher.runOnce()).toBe(2); // the first is not due again yet
  });
  beforeEach(() => {
    endpoint.received.length = 0;
  });

  async function sendTest(eventType: string): Promise<string> {
    const res = await call('POST', '/v1/webhook/test', asBackend(tenant), { eventType });
    expect(res.json().sent).toBe(1);
    return res.json().deliveryIds[0];
  }

  async function log(query = '') {
    const res = await call('GET', `/v1/webhook/${hookId}/deliveries${query}`, asBackend(tenant));
    expect(res.statusCode, res.body).toBe(200);
    return res.json().deliveries as { id: string; status: string; attempts: number }[];
  }

  it('lists deliveries newest first with their status and every attempt', async () => {
    const [confirmedId, , failedId] = ids;
    const deliveries = await log();
    expect(deliveries.map((d) => d.id)).toEqual([...ids].reverse());
    const iso = (offsetMs: number) => new Date(start.getTime() + offsetMs).toISOString();
    expect(deliveries[2]).toEqual({
      id: confirmedId,
      event: 'payment.confirmed',
      status: 'pending',
      test: true,
      attempts: 1,
      lastStatusCode: 500,
      lastError: 'HTTP 500',
      nextAttemptAt: iso(1_000), // the reference's first retry
      deliveredAt: null,
      createdAt: iso(0),
      attemptLog: [
        {
          attempt: 1,
          statusCode: 500,
          error: 'HTTP 500',
          response: 'ok',
          durationMs: expect.any(Number),
          at: iso(0),
        },
      ],
    });
    expect(deliveries[0]).toEqual({
      id: failedId,
      event: 'payment.failed',
      status: 'delivered',
      test: true,
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
      deliveredAt: iso(600),
      createdAt: iso(600),
      attemptLog: [
        {
          attempt: 1,
          statusCode: 200,
          error: null,
          // The receiver's answer, as the log keeps it.
          response: 'ok',
          durationMs: expect.any(Number),
          at: iso(600),
        },
      ],
    });
  });

  it('pages with limit and before', async () => {
    const [confirmedId, partialId, failedId] = ids;
    expect((await log('?limit=2')).map((d) => d.id)).toEqual([failedId, partialId]);
    expect((await log(`?limit=2&before=${partialId}`)).map((d) => d.id)).toEqual([confirmedId]);
    expect((await log(`?before=${failedId}`)).map((d) => d.id)).toEqual([partialId, confirmedId]);
    expect(await log(`?before=${confirmedId}`)).toEqual([]);
  });

  it('answers 400 for a before that is not one of this webhook’s deliveries', async () => {
    const sent = await call('POST', '/v1/webhook/test', asBrowser(tenant), {
      eventType: 'payment.confirmed',
    });
    const othersDelivery = sent.json().deliveryIds[0] as string;
    expect(await dispatcher.runOnce()).toBe(1);
    for (const before of [othersDelivery, 'ZZZZZZZZZZZZZZZZZZZZZZZZZZ', 'not-a-delivery']) {
      const res = await call(
        'GET',
        `/v1/webhook/${hookId}/deliveries?before=${before}`,
        asBackend(tenant),
      );
      expect(res.statusCode, before).toBe(400);
      expect(res.json(), before).toEqual(
        validationFailed('before', 'is not a delivery of this webhook'),
      );
    }
    // It is a valid cursor on its own webhook's log.
    const own = await call(
      'GET',
      `/v1/webhook/${otherHookId}/deliveries?before=${othersDelivery}`,
      asBrowser(tenant),
    );
    expect(own.statusCode).toBe(200);
  });

  it('answers 400 for a limit outside 1..100', async () => {
    for (const query of ['?limit=0', '?limit=101', '?limit=ten']) {
      const res = await call('GET', `/v1/webhook/${hookId}/deliveries${query}`, asBackend(tenant));
      expect(res.statusCode, query).toBe(400);
      expect(res.json().message).toBe('Validation failed');
    }
  });

  it('redelivers with the same delivery id and body, and logs the new attempt', async () => {
    const failedId = ids[2] ?? '';
    const first = (await log()).find((d) => d.id === failedId);
    expect(first).toMatchObject({ status: 'delivered', attempts: 1 });
    const [original] = await t.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, failedId));

    t.clock.advance(100); // the first delivery's retry is still not due
    const res = await call(
      'POST',
      `/v1/webhook/${hookId}/deliveries/${failedId}/redeliver`,
      asBackend(tenant),
    );
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ id: failedId, status: 'pending' });
    expect((await log()).find((d) => d.id === failedId)).toMatchObject({
      status: 'pending',
      nextAttemptAt: t.clock.now().toISOString(),
    });

    expect(await dispatcher.runOnce()).toBe(1);
    const [again] = await endpoint.waitFor(1);
    expect(again?.headers['x-service-delivery']).toBe(failedId);
    expect(again?.headers['x-service-retry-count']).toBe('1');
    expect(again?.rawBody).toBe(original?.body);
    const after = (await log()).find((d) => d.id === failedId);
    expect(after).toMatchObject({
      status: 'delivered',
      attempts: 2,
      deliveredAt: t.clock.now().toISOString(),
    });
    expect((after as unknown as { attemptLog: unknown[] }).attemptLog).toHaveLength(2);
  });

  it('redelivers a delivery twice: the receiver sees the same x-service-delivery twice', async () => {
    const partialId = ids[1] ?? '';
    for (let i = 0; i < 2; i++) {
      const res = await call(
        'POST',
        `/v1/webhook/${hookId}/deliveries/${partialId}/redeliver`,
        asBackend(tenant),
      );
      expect(res.statusCode).toBe(202);
      expect(await dispatcher.runOnce()).toBe(1);
    }
    const received = await endpoint.waitFor(2);
    expect(received.map((r) => r.headers['x-service-delivery'])).toEqual([partialId, partialId]);
    expect(received[0]?.rawBody).toBe(received[1]?.rawBody);
  });

  it('answers 409 while a dispatcher is sending the delivery, and leaves its lease alone', async () => {
    const deliveryId = ids[0] ?? '';
    const leaseEnd = new Date(t.clock.now().getTime() + 30_000);
    // As a dispatcher does when it claims the delivery.
    await t.db
      .update(webhookDeliveries)
      .set({ lockedUntil: leaseEnd })
      .where(eq(webhookDeliveries.id, deliveryId));
    const url = `/v1/webhook/${hookId}/deliveries/${deliveryId}/redeliver`;
    const res = await call('POST', url, asBackend(tenant));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'delivery_in_flight',
      message: 'Delivery is being sent right now; try again once this attempt ends',
    });
    const [row] = await t.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, deliveryId));
    expect(row?.lockedUntil).toEqual(leaseEnd);
    // Once the lease has run out (the dispatcher died), it can be sent again.
    t.clock.set(leaseEnd);
    expect((await call('POST', url, asBackend(tenant))).statusCode).toBe(202);
  });

  it('answers 404 for a delivery it does not have, or one of another webhook', async () => {
    const sent = await call('POST', '/v1/webhook/test', asBrowser(tenant), {
      eventType: 'payment.partial',
    });
    const othersDelivery = sent.json().deliveryIds[0] as string;
    for (const deliveryId of ['01JNOTADELIVERY00000000000', othersDelivery]) {
      const res = await call(
        'POST',
        `/v1/webhook/${hookId}/deliveries/${deliveryId}/redeliver`,
        asBackend(tenant),
      );
      expect(res.statusCode, deliveryId).toBe(404);
      expect(res.json(), deliveryId).toEqual(DELIVERY_NOT_FOUND);
    }
  });
});
