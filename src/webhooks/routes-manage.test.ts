import { eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../packages/client/src/verify.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import type { Receiver } from '../../test/webhook-receiver.ts';
import {
  asBackend,
  asBrowser,
  asKey,
  call,
  dispatcher,
  listIds,
  receiver,
  register,
  setupWebhookApps,
  t,
  validationFailed,
  WEBHOOK_NOT_FOUND,
} from '../../test/webhook-routes.ts';
import { webhookDeliveries, webhooks } from '../db/schema.ts';
import { sampleEvent, TEST_EVENT_TYPES } from './events.ts';

/**
 * Changing, switching off and deleting `/v1/webhook` endpoints, and test deliveries to real
 * loopback receivers.
 */

setupWebhookApps();

describe('PUT and DELETE /v1/webhook/:id', () => {
  let tenant: Tenant;
  let rival: Tenant;
  beforeAll(async () => {
    tenant = await createTenant(t.db, 'Switcher');
    rival = await createTenant(t.db, 'Rival');
  });

  it('switches an endpoint off and back on', async () => {
    const { id } = await register(asBackend(tenant), 'https://hooks.example.com/switch');
    const createdAt = t.clock.now().toISOString();
    t.clock.advance(1_000);
    const off = await call('PUT', `/v1/webhook/${id}`, asBackend(tenant), { active: false });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json()).toEqual({
      id,
      url: 'https://hooks.example.com/switch',
      secret: expect.stringMatching(/^whsec_\*{8}[A-Za-z0-9_-]{4}$/),
      isActive: false,
      active: false,
      clientId: tenant.backendClientId,
      retryPolicy: { backoffSeconds: null, maxDelaySeconds: null, retryForSeconds: null },
      createdAt,
    });
    const listed = (await call('GET', '/v1/webhook', asBackend(tenant))).json();
    expect(listed.find((w: { id: string }) => w.id === id)).toMatchObject({
      active: false,
      isActive: false,
    });
    const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, id));
    expect(row?.active).toBe(false);
    expect(row?.updatedAt.toISOString()).toBe(t.clock.now().toISOString());

    const on = await call('PUT', `/v1/webhook/${id}`, asBackend(tenant), { active: true });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toMatchObject({ active: true, isActive: true });
    // The account's API key may switch it too.
    const byKey = await call('PUT', `/v1/webhook/${id}`, asKey(tenant), { active: false });
    expect(byKey.json().active).toBe(false);
  });

  it('answers 400 for a PUT body whose active is not a boolean (none toggles: routes-toggle.test.ts)', async () => {
    const { id } = await register(asBackend(tenant), 'https://hooks.example.com/strict');
    const wrongType = await call('PUT', `/v1/webhook/${id}`, asBackend(tenant), { active: 'no' });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().errors).toEqual([{ field: 'active', message: expect.any(String) }]);
  });

  it('hides a client ID’s webhook from another client ID of the same account', async () => {
    const { id } = await register(asBackend(tenant), 'https://hooks.example.com/mine');
    const res = await call('PUT', `/v1/webhook/${id}`, asBrowser(tenant), { active: false });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(WEBHOOK_NOT_FOUND);
    const del = await call('DELETE', `/v1/webhook/${id}`, asBrowser(tenant));
    expect(del.json()).toEqual(WEBHOOK_NOT_FOUND);
    const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, id));
    expect(row).toMatchObject({ active: true, deletedAt: null });
  });

  it('deletes for good: afterwards GET omits it and PUT, DELETE and the log answer 404', async () => {
    // A tenant of its own, so the test delivery below goes to this loopback receiver only.
    const owner = await createTenant(t.db, 'Deleter');
    const sink = await receiver();
    const { id } = await register(asBackend(owner), sink.url);
    const sent = await call('POST', '/v1/webhook/test', asBackend(owner), {
      eventType: 'payment.confirmed',
    });
    const deliveryId = (sent.json().deliveryIds as string[])[0];
    t.clock.advance(1_000);

    const deleted = await call('DELETE', `/v1/webhook/${id}`, asBackend(owner));
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toEqual({ id, deleted: true });

    expect(await listIds(asBackend(owner))).toEqual([]);
    expect(await listIds(asKey(owner))).toEqual([]);
    for (const [method, url, payload] of [
      ['PUT', `/v1/webhook/${id}`, { active: true }],
      ['DELETE', `/v1/webhook/${id}`, undefined],
      ['GET', `/v1/webhook/${id}/deliveries`, undefined],
      ['POST', `/v1/webhook/${id}/deliveries/${deliveryId}/redeliver`, undefined],
    ] as const) {
      const res = await call(method, url, asBackend(owner), payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json(), `${method} ${url}`).toEqual(WEBHOOK_NOT_FOUND);
    }
    // The row and its delivery log stay, switched off; the pending delivery is dropped unsent.
    expect(await dispatcher.runOnce()).toBe(1);
    const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, id));
    expect(row).toMatchObject({ active: false, deletedAt: t.clock.now() });
    const log = await t.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, id));
    expect(log.map((d) => ({ id: d.id, status: d.status }))).toEqual([
      { id: deliveryId, status: 'failed' },
    ]);
    expect(sink.received).toEqual([]);
  });

  it('answers 404 on every route for another account’s webhook, and changes nothing', async () => {
    const owner = await createTenant(t.db, 'Owner');
    const target = await receiver();
    const { id } = await register(asBackend(owner), target.url);
    const sent = await call('POST', '/v1/webhook/test', asKey(owner), {
      eventType: 'payment.partial',
    });
    const deliveryIds = sent.json().deliveryIds as string[];
    const [delivery] = await t.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, id));
    expect(deliveryIds).toContain(delivery?.id);
    for (const headers of [asKey(rival), asBackend(rival), asBrowser(rival)]) {
      for (const [method, url, payload] of [
        ['PUT', `/v1/webhook/${id}`, { active: false }],
        ['DELETE', `/v1/webhook/${id}`, undefined],
        ['GET', `/v1/webhook/${id}/deliveries`, undefined],
        ['POST', `/v1/webhook/${id}/deliveries/${delivery?.id}/redeliver`, undefined],
      ] as const) {
        const res = await call(method, url, headers, payload);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json(), `${method} ${url}`).toEqual(WEBHOOK_NOT_FOUND);
      }
    }
    const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, id));
    expect(row).toMatchObject({ active: true, deletedAt: null });
    const [after] = await t.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, delivery?.id ?? ''));
    expect(after).toEqual(delivery);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await target.waitFor(1)).toHaveLength(1);
  });

  it('answers 404 for an id that was never issued', async () => {
    const res = await call('PUT', '/v1/webhook/whk_01JNOTAREALWEBHOOK00000000', asKey(tenant), {
      active: false,
    });
    expect(res.json()).toEqual(WEBHOOK_NOT_FOUND);
  });
});

describe('POST /v1/webhook/test', () => {
  let tenant: Tenant;
  let first: Receiver;
  let second: Receiver;
  let inactive: Receiver;
  let otherClient: Receiver;
  const secrets = new Map<Receiver, string>();

  beforeAll(async () => {
    tenant = await createTenant(t.db, 'Tester');
    [first, second, inactive, otherClient] = await Promise.all([
      receiver(),
      receiver(),
      receiver(),
      receiver(),
    ]);
    for (const r of [first, second]) {
      secrets.set(r, (await register(asBackend(tenant), r.url)).secret);
      r.verifyWith(secrets.get(r) ?? '');
    }
    secrets.set(otherClient, (await register(asBrowser(tenant), otherClient.url)).secret);
    const inactiveHook = (await register(asBackend(tenant), inactive.url)).id;
    const off = await call('PUT', `/v1/webhook/${inactiveHook}`, asBackend(tenant), {
      active: false,
    });
    expect(off.json().active).toBe(false);
  });
  beforeEach(() => {
    for (const r of [first, second, inactive, otherClient]) r.received.length = 0;
  });

  it.each(TEST_EVENT_TYPES)(
    'sends %s once to each active endpoint of the client ID, flagged as a test and signed',
    async (eventType) => {
      const res = await call('POST', '/v1/webhook/test', asBackend(tenant), { eventType });
      expect(res.statusCode, res.body).toBe(201);
      const { sent, deliveryIds } = res.json() as { sent: number; deliveryIds: string[] };
      expect(sent).toBe(2);
      expect(new Set(deliveryIds).size).toBe(2);

      expect(await dispatcher.runOnce()).toBe(2);
      for (const r of [first, second]) {
        const [delivery, ...more] = await r.waitFor(1);
        expect(more).toEqual([]);
        expect(delivery?.headers['x-service-test']).toBe('true');
        expect(delivery?.headers['x-service-retry-count']).toBe('0');
        expect(delivery?.headers['x-request-network-test']).toBe('true');
        expect(delivery?.headers['x-request-network-retry-count']).toBe('0');
        expect(delivery?.headers['x-request-network-delivery']).toBe(
          delivery?.headers['x-service-delivery'],
        );
        expect(delivery?.headers['content-type']).toBe('application/json');
        expect(deliveryIds).toContain(delivery?.headers['x-service-delivery']);
        expect(delivery?.body).toEqual(
          sampleEvent(eventType, t.clock.now(), tenant.backendClientId),
        );
        expect(Object.keys(delivery?.body ?? {})[0]).toBe('event');
        expect(
          verifyWebhook({
            rawBody: delivery?.rawBody ?? '',
            headers: delivery?.headers ?? {},
            secret: secrets.get(r) ?? '',
            now: Math.floor(t.clock.now().getTime() / 1000),
          }),
        ).toEqual({ ok: true, deliveryId: delivery?.headers['x-service-delivery'], version: 'v2' });
      }
      expect(first.received[0]?.headers['x-service-delivery']).not.toBe(
        second.received[0]?.headers['x-service-delivery'],
      );
      expect(inactive.received).toEqual([]);
      expect(otherClient.received).toEqual([]);
      // Receivers written for the reference API (they check only its signature) took them all.
      expect(first.refused).toEqual([]);
      expect(second.refused).toEqual([]);
    },
  );

  it('sends to every active endpoint of the account when called with the API key', async () => {
    const res = await call('POST', '/v1/webhook/test', asKey(tenant), {
      eventType: 'payment.confirmed',
    });
    expect(res.json().sent).toBe(3);
    expect(await dispatcher.runOnce()).toBe(3);
    expect(first.received).toHaveLength(1);
    expect(second.received).toHaveLength(1);
    expect(otherClient.received).toHaveLength(1);
    expect(inactive.received).toEqual([]);
  });

  it('answers 400 for an event type it does not know, and sends nothing', async () => {
    for (const eventType of ['payment.unknown', 'client_id.unlinked', 'PAYMENT.CONFIRMED']) {
      const res = await call('POST', '/v1/webhook/test', asBackend(tenant), { eventType });
      expect(res.statusCode, eventType).toBe(400);
      expect(res.json(), eventType).toEqual(
        validationFailed('eventType', `must be one of ${TEST_EVENT_TYPES.join(', ')}`),
      );
    }
    const missing = await call('POST', '/v1/webhook/test', asBackend(tenant), {});
    expect(missing.json()).toEqual(validationFailed('eventType', 'is required'));
    expect(await dispatcher.runOnce()).toBe(0);
    expect(first.received).toEqual([]);
  });

  it('sends nothing and says so when the caller has no active endpoint', async () => {
    const lonely = await createTenant(t.db, 'Lonely');
    const { id } = await register(asBackend(lonely), 'https://hooks.example.com/off');
    await call('PUT', `/v1/webhook/${id}`, asBackend(lonely), { active: false });
    const res = await call('POST', '/v1/webhook/test', asBackend(lonely), {
      eventType: 'payment.confirmed',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ sent: 0, deliveryIds: [] });
  });
});
