import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, SHOP_ORIGIN, type Tenant } from '../../test/fixtures.ts';
import { type Receiver, startReceiver } from '../../test/webhook-receiver.ts';
import { webhookDeliveries, webhooks } from '../db/schema.ts';
import { createDispatcher, type Dispatcher } from './dispatcher.ts';
import { EVENT_TYPES, sampleEvent } from './events.ts';
import { verifyWebhook } from './verify.ts';

/**
 * The `/v1/webhook` routes through the real app: registration and its URL rules, ownership,
 * switching off and deleting, test deliveries to real loopback receivers, the delivery log and
 * redelivery.
 */

const HTTPS_ONLY = 'must use https (http only for localhost when ALLOW_LOCAL_WEBHOOKS is on)';
const PRIVATE = 'must not point at a private or loopback address';
const WEBHOOK_NOT_FOUND = {
  statusCode: 404,
  message: 'Webhook not found',
  error: 'Not Found',
  code: 'webhook_not_found',
};
const DELIVERY_NOT_FOUND = {
  statusCode: 404,
  message: 'Delivery not found',
  error: 'Not Found',
  code: 'delivery_not_found',
};

let t: TestApp; // ALLOW_LOCAL_WEBHOOKS on
let strict: TestApp; // ALLOW_LOCAL_WEBHOOKS off
let dispatcher: Dispatcher;
const receivers: Receiver[] = [];

beforeAll(async () => {
  [t, strict] = await Promise.all([
    createTestApp({ env: { ALLOW_LOCAL_WEBHOOKS: 'true' } }),
    createTestApp({ env: { ALLOW_LOCAL_WEBHOOKS: 'false' } }),
  ]);
  dispatcher = createDispatcher({
    db: t.db,
    clock: t.clock,
    logger: t.app.log as never,
    secretBox: t.secretBox,
    config: t.config.webhooks,
    random: () => 0.5, // no jitter: retry times are exact
  });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await Promise.all([t.close(), strict.close()]);
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

type Headers = Record<string, string>;
const asKey = (tenant: Tenant): Headers => ({ 'x-api-key': tenant.apiKey });
const asBackend = (tenant: Tenant): Headers => ({ 'x-client-id': tenant.backendClientId });
const asBrowser = (tenant: Tenant): Headers => ({
  'x-client-id': tenant.browserClientId,
  origin: SHOP_ORIGIN,
});

function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Headers,
  payload?: object,
  app: TestApp = t,
) {
  return app.app.inject({ method, url, headers, ...(payload && { payload }) });
}

async function register(
  headers: Headers,
  url: string,
  app: TestApp = t,
): Promise<{ id: string; secret: string }> {
  const res = await call('POST', '/v1/webhook', headers, { url }, app);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

function validationFailed(field: string, message: string) {
  return {
    statusCode: 400,
    message: 'Validation failed',
    error: 'Bad Request',
    code: 'validation_failed',
    errors: [{ field, message }],
  };
}

async function listIds(headers: Headers): Promise<string[]> {
  const res = await call('GET', '/v1/webhook', headers);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { id: string }[]).map((w) => w.id).sort();
}

describe('POST /v1/webhook', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant(t.db, 'Registrar');
  });

  it('answers 201 with a whk_ id and a whsec_ secret, stored only in sealed form', async () => {
    const res = await call('POST', '/v1/webhook', asBackend(tenant), {
      url: 'https://hooks.example.com/payreq',
    });
    expect(res.statusCode, res.body).toBe(201);
    const { id, secret } = res.json();
    expect(Object.keys(res.json()).sort()).toEqual(['id', 'secret']);
    expect(id).toMatch(/^whk_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, id));
    expect(row).toMatchObject({
      accountId: tenant.accountId,
      url: 'https://hooks.example.com/payreq',
      active: true,
      deletedAt: null,
    });
    const sealed = row?.secretSealed ?? '';
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(secret.slice('whsec_'.length));
    expect(t.secretBox.open(sealed, id)).toBe(secret);
    // Sealed for this row: copied onto another row it does not open.
    expect(() => t.secretBox.open(sealed, 'whk_another')).toThrow();

    const again = await register(asBackend(tenant), 'https://hooks.example.com/payreq');
    expect(again.secret).not.toBe(secret);
    expect(again.id).not.toBe(id);
  });

  it('shows the secret once: listing, switching and the delivery log never return it', async () => {
    const { id, secret } = await register(asBackend(tenant), 'https://hooks.example.com/once');
    const answers = [
      await call('GET', '/v1/webhook', asBackend(tenant)),
      await call('GET', '/v1/webhook', asKey(tenant)),
      await call('PUT', `/v1/webhook/${id}`, asBackend(tenant), { active: true }),
      await call('GET', `/v1/webhook/${id}/deliveries`, asBackend(tenant)),
    ];
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.body).not.toContain(secret);
      expect(answer.body).not.toContain('whsec_');
      expect(answer.body).not.toContain('secret');
    }
    const listed = (answers[0]?.json() as Record<string, unknown>[] | undefined)?.find(
      (w) => w.id === id,
    );
    expect(listed).toEqual({
      id,
      url: 'https://hooks.example.com/once',
      active: true,
      createdAt: t.clock.now().toISOString(),
    });
    expect(t.logs.text()).not.toContain(secret);
  });

  it('accepts https URLs and stores them normalised', async () => {
    const { id } = await register(asKey(tenant), 'HTTPS://Hooks.Example.com:443/a/../b?x=1');
    const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, id));
    expect(row?.url).toBe('https://hooks.example.com/b?x=1');
  });

  it('accepts http://127.0.0.1 and http://localhost when ALLOW_LOCAL_WEBHOOKS is on', async () => {
    for (const url of ['http://127.0.0.1:8080/hooks', 'http://localhost:3000/hooks']) {
      const { id } = await register(asKey(tenant), url);
      const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, id));
      expect(row?.url).toBe(url);
    }
  });

  it('refuses plain http to a public host even when local webhooks are on', async () => {
    const res = await call('POST', '/v1/webhook', asKey(tenant), {
      url: 'http://hooks.example.com/x',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(validationFailed('url', HTTPS_ONLY));
  });

  it('refuses credentials, fragments, other schemes and relative URLs', async () => {
    for (const [url, message] of [
      ['https://user:pass@hooks.example.com/x', 'must not contain credentials'],
      ['https://hooks.example.com/x#section', 'must not contain a fragment'],
      ['ftp://hooks.example.com/x', 'must use https'],
      ['hooks.example.com/x', 'must be an absolute URL'],
      [`https://hooks.example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
    ] as const) {
      const res = await call('POST', '/v1/webhook', asKey(tenant), { url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toEqual(validationFailed('url', message));
    }
  });

  it('answers 400 for a missing url or an unknown field, and 401 without credentials', async () => {
    const missing = await call('POST', '/v1/webhook', asKey(tenant), {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual(validationFailed('url', 'is required'));
    const extra = await call('POST', '/v1/webhook', asKey(tenant), {
      url: 'https://hooks.example.com/x',
      events: ['payment.confirmed'],
    });
    expect(extra.statusCode).toBe(400);
    expect(extra.json()).toEqual(validationFailed('events', 'is not allowed'));
    const anonymous = await call('POST', '/v1/webhook', {}, { url: 'https://hooks.example.com/x' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('accepts at most 20 webhooks per client ID; deleting one frees its place', async () => {
    const busy = await createTenant(t.db, 'Busy');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      ids.push((await register(asBackend(busy), `https://hooks.example.com/${i}`)).id);
    }
    const over = await call('POST', '/v1/webhook', asBackend(busy), {
      url: 'https://hooks.example.com/20',
    });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toEqual(validationFailed('url', 'at most 20 webhooks per client ID'));
    // Another client ID of the same account has its own allowance.
    await register(asBrowser(busy), 'https://hooks.example.com/browser');

    const deleted = await call('DELETE', `/v1/webhook/${ids[0]}`, asBackend(busy));
    expect(deleted.statusCode).toBe(200);
    await register(asBackend(busy), 'https://hooks.example.com/20');
    expect(await listIds(asBackend(busy))).toHaveLength(20);
  });
});

describe('POST /v1/webhook with ALLOW_LOCAL_WEBHOOKS off', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant(strict.db, 'Production');
  });

  it('still accepts a public https URL', async () => {
    await register(asKey(tenant), 'https://hooks.example.com/payreq', strict);
  });

  it('refuses http://127.0.0.1 and http://localhost as not https', async () => {
    for (const url of ['http://127.0.0.1:8080/hooks', 'http://localhost:3000/hooks']) {
      const res = await call('POST', '/v1/webhook', asKey(tenant), { url }, strict);
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toEqual(validationFailed('url', HTTPS_ONLY));
    }
  });

  it('refuses private and loopback literals even over https', async () => {
    for (const url of [
      'https://10.0.0.1/hooks',
      'https://10.200.3.4:8443/hooks',
      'https://192.168.1.10/hooks',
      'https://172.16.5.5/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hooks',
      'https://[fd00::5]/hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      'https://127.0.0.1/hooks',
      'https://localhost/hooks',
    ]) {
      const res = await call('POST', '/v1/webhook', asKey(tenant), { url }, strict);
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toEqual(validationFailed('url', PRIVATE));
    }
    const rows = await strict.db
      .select()
      .from(webhooks)
      .where(eq(webhooks.accountId, tenant.accountId));
    expect(rows.map((r) => r.url)).toEqual(['https://hooks.example.com/payreq']);
  });
});

describe('GET /v1/webhook', () => {
  let tenant: Tenant;
  let rival: Tenant;
  let backendHook: string;
  let browserHook: string;
  let accountHook: string;

  beforeAll(async () => {
    tenant = await createTenant(t.db, 'Scoped');
    rival = await createTenant(t.db, 'Rival');
    backendHook = (await register(asBackend(tenant), 'https://hooks.example.com/backend')).id;
    browserHook = (await register(asBrowser(tenant), 'https://hooks.example.com/browser')).id;
    accountHook = (await register(asKey(tenant), 'https://hooks.example.com/account')).id;
    await register(asKey(rival), 'https://hooks.rival.example/x');
  });

  it('lists to a client ID only the webhooks it registered', async () => {
    expect(await listIds(asBackend(tenant))).toEqual([backendHook]);
    expect(await listIds(asBrowser(tenant))).toEqual([browserHook]);
  });

  it('lists to an API key every webhook of its account', async () => {
    expect(await listIds(asKey(tenant))).toEqual([accountHook, backendHook, browserHook].sort());
  });

  it('lists none of them to another account', async () => {
    const rivalIds = await listIds(asKey(rival));
    expect(rivalIds).toHaveLength(1);
    expect(rivalIds).not.toContain(backendHook);
    expect(await listIds(asBackend(rival))).toEqual([]);
    expect(await listIds(asBrowser(rival))).toEqual([]);
  });

  it('serves a signed-in user the account’s webhooks, as an API key of that account', async () => {
    const registered = await call(
      'POST',
      '/v1/auth/register',
      {},
      {
        email: 'hooks@example.com',
        password: 'correct horse battery',
      },
    );
    expect(registered.statusCode, registered.body).toBe(201);
    const asUser = { authorization: `Bearer ${registered.json().sessionToken}` };
    const hook = await register(asUser, 'https://hooks.example.com/user');
    expect(await listIds(asUser)).toEqual([hook.id]);
    const key = await call('POST', '/v1/api-keys', asUser, { label: 'server' });
    expect(key.statusCode, key.body).toBe(201);
    expect(await listIds({ 'x-api-key': key.json().apiKey })).toEqual([hook.id]);
    expect(await listIds(asKey(tenant))).not.toContain(hook.id);
  });

  it('records which client ID owns a webhook; an API key registers an account-wide one', async () => {
    const rows = await t.db.select().from(webhooks).where(eq(webhooks.accountId, tenant.accountId));
    const owners = new Map(rows.map((r) => [r.id, r.clientIdId]));
    expect(owners.get(accountHook)).toBeNull();
    expect(owners.get(backendHook)).toEqual(expect.any(String));
    expect(owners.get(browserHook)).toEqual(expect.any(String));
    expect(owners.get(backendHook)).not.toBe(owners.get(browserHook));
  });
});

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
      active: false,
      createdAt,
    });
    const listed = (await call('GET', '/v1/webhook', asBackend(tenant))).json();
    expect(listed.find((w: { id: string }) => w.id === id).active).toBe(false);
    const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, id));
    expect(row?.active).toBe(false);
    expect(row?.updatedAt.toISOString()).toBe(t.clock.now().toISOString());

    const on = await call('PUT', `/v1/webhook/${id}`, asBackend(tenant), { active: true });
    expect(on.statusCode).toBe(200);
    expect(on.json().active).toBe(true);
    // The account's API key may switch it too.
    const byKey = await call('PUT', `/v1/webhook/${id}`, asKey(tenant), { active: false });
    expect(byKey.json().active).toBe(false);
  });

  it('answers 400 for a PUT body that is not exactly {active: boolean}', async () => {
    const { id } = await register(asBackend(tenant), 'https://hooks.example.com/strict');
    const missing = await call('PUT', `/v1/webhook/${id}`, asBackend(tenant), {});
    expect(missing.json()).toEqual(validationFailed('active', 'is required'));
    const extra = await call('PUT', `/v1/webhook/${id}`, asBackend(tenant), {
      active: true,
      url: 'https://hooks.example.com/other',
    });
    expect(extra.json()).toEqual(validationFailed('url', 'is not allowed'));
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

  it.each(EVENT_TYPES)(
    'sends %s once to each active endpoint of the client ID, flagged as a test and signed',
    async (eventType) => {
      const res = await call('POST', '/v1/webhook/test', asBackend(tenant), { eventType });
      expect(res.statusCode, res.body).toBe(200);
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
        expect(delivery?.body).toEqual(sampleEvent(eventType, t.clock.now()));
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

  it('answers 400 for an event type outside the fourteen, and sends nothing', async () => {
    for (const eventType of ['payment.unknown', 'client_id.linked', 'PAYMENT.CONFIRMED']) {
      const res = await call('POST', '/v1/webhook/test', asBackend(tenant), { eventType });
      expect(res.statusCode, eventType).toBe(400);
      expect(res.json(), eventType).toEqual(
        validationFailed('eventType', `must be one of ${EVENT_TYPES.join(', ')}`),
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
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ sent: 0, deliveryIds: [] });
  });
});

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
    t.clock.advance(1_000);
    ids.push(await sendTest('payment.partial'));
    t.clock.advance(1_000);
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
      nextAttemptAt: iso(t.config.webhooks.retryBaseMs),
      deliveredAt: null,
      createdAt: iso(0),
      attemptLog: [
        {
          attempt: 1,
          statusCode: 500,
          error: 'HTTP 500',
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
      deliveredAt: iso(2_000),
      createdAt: iso(2_000),
      attemptLog: [
        {
          attempt: 1,
          statusCode: 200,
          error: null,
          durationMs: expect.any(Number),
          at: iso(2_000),
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

  it('answers 400 for a limit outside 1..100 or an unknown query field', async () => {
    for (const query of ['?limit=0', '?limit=101', '?limit=ten', '?page=2']) {
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

    t.clock.advance(1_000);
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
