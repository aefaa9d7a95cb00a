import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { type Receiver, startReceiver } from '../../test/webhook-receiver.ts';
import { webhookDeliveries, webhooks } from '../db/schema.ts';
import { createDispatcher } from '../webhooks/dispatcher.ts';
import { orchestratorWebhookIds } from '../webhooks/orchestrator-webhooks.ts';
import { enqueue } from '../webhooks/outbox.ts';
import { signV1 } from '../webhooks/signature.ts';
import { createOrchestrator } from './orchestrators.ts';

let t: TestApp;
let tenant: Tenant;
let platform: { orchestratorId: string; orchestratorKey: string };
let rival: { orchestratorId: string; orchestratorKey: string };
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await createTestApp({
    env: { ALLOW_LOCAL_WEBHOOKS: 'true', WEBHOOK_TIMEOUT_MS: '1000' },
  });
  tenant = await createTenant(t.db);
  platform = await createOrchestrator(t.db, 'Platform');
  rival = await createOrchestrator(t.db, 'Rival');
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await t.close();
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

function call(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  key: string,
  body?: object,
) {
  return t.app.inject({
    method,
    url,
    headers: { 'x-orchestrator-key': key },
    ...(body && { payload: body }),
  });
}

const ownRows = (orchestratorId: string) =>
  t.db.select().from(webhooks).where(eq(webhooks.orchestratorId, orchestratorId));

describe('orchestrator webhooks', () => {
  it('registers an endpoint once, shows its secret once, refuses the same URL again', async () => {
    const url = 'https://hooks.platform.example/payreq';
    const res = await call('POST', '/v2/orchestrators/webhooks', platform.orchestratorKey, { url });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      webhook: {
        id: expect.stringMatching(/^whk_/),
        url,
        isActive: true,
        createdAt: t.clock.now().toISOString(),
      },
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const [row] = await ownRows(platform.orchestratorId);
    expect(row).toMatchObject({ accountId: null, clientIdId: null, url });
    expect(row?.secretSealed).not.toContain(body.secret);

    const again = await call('POST', '/v2/orchestrators/webhooks', platform.orchestratorKey, {
      url,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: 'webhook_url_taken',
      message: 'This orchestrator already has a webhook at this URL',
    });
    // Another orchestrator may use the same URL: the rule is per orchestrator.
    const other = await call('POST', '/v2/orchestrators/webhooks', rival.orchestratorKey, { url });
    expect(other.statusCode).toBe(201);
    expect(await ownRows(platform.orchestratorId)).toHaveLength(1);
  });

  it('answers 400 naming url for a URL the policy refuses, writing nothing', async () => {
    const before = (await ownRows(platform.orchestratorId)).length;
    for (const url of ['ftp://hooks.example/x', 'not a url']) {
      const res = await call('POST', '/v2/orchestrators/webhooks', platform.orchestratorKey, {
        url,
      });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().errors[0].field).toBe('url');
    }
    const missing = await call('POST', '/v2/orchestrators/webhooks', platform.orchestratorKey, {});
    expect(missing.statusCode).toBe(400);
    expect(await ownRows(platform.orchestratorId)).toHaveLength(before);
  });

  it('deactivates and activates its own endpoints only; lists them all', async () => {
    t.clock.advance(1_000); // created after the first one: the list is oldest first
    const created = await call('POST', '/v2/orchestrators/webhooks', platform.orchestratorKey, {
      url: 'https://hooks.platform.example/second',
    });
    const id: string = created.json().webhook.id;
    for (const [method, key] of [
      ['DELETE', rival.orchestratorKey],
      ['PATCH', rival.orchestratorKey],
    ] as const) {
      const res = await call(method, `/v2/orchestrators/webhooks/${id}`, key);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'webhook_not_found' });
    }
    const off = await call('DELETE', `/v2/orchestrators/webhooks/${id}`, platform.orchestratorKey);
    expect(off.statusCode).toBe(200);
    expect(off.json().webhook).toMatchObject({ id, isActive: false });
    const offAgain = await call(
      'DELETE',
      `/v2/orchestrators/webhooks/${id}`,
      platform.orchestratorKey,
    );
    expect(offAgain.json().webhook.isActive).toBe(false);

    const list = await call('GET', '/v2/orchestrators/webhooks', platform.orchestratorKey);
    expect(
      list.json().webhooks.map((w: { url: string; isActive: boolean }) => [w.url, w.isActive]),
    ).toEqual([
      ['https://hooks.platform.example/payreq', true],
      ['https://hooks.platform.example/second', false],
    ]);
    const rivalList = await call('GET', '/v2/orchestrators/webhooks', rival.orchestratorKey);
    expect(rivalList.json().webhooks.map((w: { id: string }) => w.id)).not.toContain(id);

    const on = await call('PATCH', `/v2/orchestrators/webhooks/${id}`, platform.orchestratorKey);
    expect(on.json().webhook).toMatchObject({ id, isActive: true });
    // Neither a merchant's key nor its webhook routes reach an orchestrator's endpoint.
    const asMerchant = await t.app.inject({
      method: 'GET',
      url: `/v1/webhook/${id}/deliveries`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(asMerchant.statusCode).toBe(404);
    const merchantList = await t.app.inject({
      method: 'GET',
      url: '/v1/webhook',
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(merchantList.body).not.toContain(id);
  });

  it('sends a signed test event to each active endpoint now and counts the answers', async () => {
    const orchestrator = await createOrchestrator(t.db, 'Tester');
    const key = orchestrator.orchestratorKey;
    const [good, bad, off] = [await receiver(), await receiver(), await receiver()];
    const register = async (url: string) =>
      (await call('POST', '/v2/orchestrators/webhooks', key, { url })).json();
    const goodHook = await register(good.url);
    good.verifyWith(goodHook.secret);
    await register(bad.url);
    bad.respondWith(500);
    const offHook = await register(off.url);
    await call('DELETE', `/v2/orchestrators/webhooks/${offHook.webhook.id}`, key);

    const res = await call('POST', '/v2/orchestrators/webhooks/test', key, {
      eventType: 'client_id.linked',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ sent: 1, failed: 1 });
    const [delivery] = good.received;
    expect(good.refused).toEqual([]);
    expect(delivery?.headers['x-request-network-test']).toBe('true');
    expect(delivery?.headers['x-request-network-signature']).toBe(
      signV1(delivery?.rawBody ?? '', goodHook.secret),
    );
    expect(delivery?.body).toMatchObject({
      event: 'client_id.linked',
      orchestratorId: orchestrator.orchestratorId,
    });
    expect(bad.received).toHaveLength(1);
    expect(off.received).toEqual([]);
    // A probe, not an event: nothing went into the outbox.
    const written = await t.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, goodHook.webhook.id));
    expect(written).toEqual([]);

    const unknown = await call('POST', '/v2/orchestrators/webhooks/test', key, {
      eventType: 'payment.partial',
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].field).toBe('eventType');
    // An orchestrator with no endpoint of its own reaches none of the others'.
    const empty = await createOrchestrator(t.db, 'Empty');
    const none = await call('POST', '/v2/orchestrators/webhooks/test', empty.orchestratorKey, {
      eventType: 'kyt.screening.completed',
    });
    expect(none.json()).toEqual({ sent: 0, failed: 0 });
    expect(good.received).toHaveLength(1);
  });

  it('delivers an orchestrator event through the outbox, signed, like any other', async () => {
    const orchestrator = await createOrchestrator(t.db, 'Durable');
    const target = await receiver();
    const created = await call('POST', '/v2/orchestrators/webhooks', orchestrator.orchestratorKey, {
      url: target.url,
    });
    const { secret } = created.json();
    target.verifyWith(secret);
    const ids = await orchestratorWebhookIds(t.db, orchestrator.orchestratorId);
    expect(ids).toEqual([created.json().webhook.id]);
    const payload = {
      clientId: tenant.backendClientId,
      orchestratorId: orchestrator.orchestratorId,
    };
    await enqueue(t.db, t.clock.now(), ids, [{ event: 'client_id.linked', payload }]);
    const dispatcher = createDispatcher({
      db: t.database.queue,
      clock: t.clock,
      logger: t.app.log as never,
      secretBox: t.secretBox,
      config: t.config.webhooks,
    });
    expect(await dispatcher.runOnce()).toBeGreaterThanOrEqual(1);
    const [delivery] = await target.waitFor(1);
    expect(delivery?.body).toEqual({ event: 'client_id.linked', ...payload });
    expect(delivery?.headers['x-request-network-test']).toBeUndefined();
    expect(target.refused).toEqual([]);
  });
});
