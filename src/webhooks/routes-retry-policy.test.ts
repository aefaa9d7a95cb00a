import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import {
  asBackend,
  asBrowser,
  asKey,
  call,
  setupWebhookApps,
  t,
  validationFailed,
  WEBHOOK_NOT_FOUND,
} from '../../test/webhook-routes.ts';
import { webhooks } from '../db/schema.ts';

/**
 * An endpoint's retry policy past the reference's three retries: set at registration
 * (`retryPolicy` on `POST /v1/webhook`) or with `PATCH /v1/webhook/{id}`, within its bounds, and
 * shown on the endpoint. The schedule it drives is proved in dispatcher-retries.test.ts.
 */

setupWebhookApps();

const DEFAULTS = { backoffSeconds: null, maxDelaySeconds: null, retryForSeconds: null };

let tenant: Tenant;
let rival: Tenant;
beforeAll(async () => {
  tenant = await createTenant(t.db, 'Patient');
  rival = await createTenant(t.db, 'Rival');
});

async function columns(id: string) {
  const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, id));
  return {
    backoffSeconds: row?.retryBackoffSeconds,
    maxDelaySeconds: row?.retryMaxDelaySeconds,
    retryForSeconds: row?.retryForSeconds,
  };
}

async function registered(retryPolicy?: object): Promise<string> {
  const res = await call('POST', '/v1/webhook', asBackend(tenant), {
    url: 'https://hooks.example.com/retry',
    ...(retryPolicy && { retryPolicy }),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

describe('retryPolicy on POST /v1/webhook', () => {
  it('stores the policy sent, and the deployment’s (null) for what is left out', async () => {
    const id = await registered({ backoffSeconds: 60, retryForSeconds: 0 });
    expect(await columns(id)).toEqual({
      backoffSeconds: 60,
      maxDelaySeconds: null,
      retryForSeconds: 0,
    });
    const listed = (await call('GET', '/v1/webhook', asBackend(tenant))).json();
    expect(listed.find((w: { id: string }) => w.id === id).retryPolicy).toEqual({
      backoffSeconds: 60,
      maxDelaySeconds: null,
      retryForSeconds: 0,
    });
    expect(await columns(await registered())).toEqual(DEFAULTS);
  });

  it('answers 400 for a policy out of bounds and writes no endpoint', async () => {
    const before = (await t.db.select().from(webhooks)).length;
    for (const [policy, field] of [
      [{ backoffSeconds: 14 }, 'retryPolicy.backoffSeconds'],
      [{ backoffSeconds: 86_401 }, 'retryPolicy.backoffSeconds'],
      [{ backoffSeconds: 1.5 }, 'retryPolicy.backoffSeconds'],
      [{ maxDelaySeconds: 10 }, 'retryPolicy.maxDelaySeconds'],
      [{ retryForSeconds: -1 }, 'retryPolicy.retryForSeconds'],
      [{ retryForSeconds: 2_592_001 }, 'retryPolicy.retryForSeconds'],
      [{ backoffSeconds: '60' }, 'retryPolicy.backoffSeconds'],
    ] as const) {
      const res = await call('POST', '/v1/webhook', asBackend(tenant), {
        url: 'https://hooks.example.com/bad',
        retryPolicy: policy,
      });
      expect(res.statusCode, JSON.stringify(policy)).toBe(400);
      expect(res.json().errors[0].field, JSON.stringify(policy)).toBe(field);
    }
    const inverted = await call('POST', '/v1/webhook', asBackend(tenant), {
      url: 'https://hooks.example.com/bad',
      retryPolicy: { backoffSeconds: 600, maxDelaySeconds: 60 },
    });
    expect(inverted.json()).toEqual(
      validationFailed('retryPolicy.maxDelaySeconds', 'must be at least backoffSeconds'),
    );
    expect(await t.db.select().from(webhooks)).toHaveLength(before);
  });
});

describe('PATCH /v1/webhook/:id', () => {
  it('changes the fields sent, resets those sent as null, keeps the others', async () => {
    const id = await registered({ backoffSeconds: 60, maxDelaySeconds: 600 });
    t.clock.advance(1_000);
    const res = await call('PATCH', `/v1/webhook/${id}`, asBackend(tenant), {
      retryPolicy: { maxDelaySeconds: null, retryForSeconds: 86_400 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id,
      isActive: true,
      retryPolicy: { backoffSeconds: 60, maxDelaySeconds: null, retryForSeconds: 86_400 },
    });
    expect(await columns(id)).toEqual(res.json().retryPolicy);
    const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, id));
    expect(row?.updatedAt).toEqual(t.clock.now());
    // The account's API key may change it too.
    const byKey = await call('PATCH', `/v1/webhook/${id}`, asKey(tenant), {
      retryPolicy: { backoffSeconds: null, retryForSeconds: null },
    });
    expect(byKey.json().retryPolicy).toEqual(DEFAULTS);
  });

  it('checks the policy against what it keeps, and answers 400 writing nothing', async () => {
    const id = await registered({ backoffSeconds: 600 });
    const res = await call('PATCH', `/v1/webhook/${id}`, asBackend(tenant), {
      retryPolicy: { maxDelaySeconds: 60 },
    });
    expect(res.json()).toEqual(
      validationFailed('retryPolicy.maxDelaySeconds', 'must be at least backoffSeconds'),
    );
    for (const body of [{}, { retryPolicy: { backoffSeconds: 5 } }, { active: false }]) {
      const bad = await call('PATCH', `/v1/webhook/${id}`, asBackend(tenant), body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(await columns(id)).toEqual({ ...DEFAULTS, backoffSeconds: 600 });
  });

  it('answers 404 for another client ID’s or another account’s webhook', async () => {
    const id = await registered();
    for (const headers of [asBrowser(tenant), asKey(rival), asBackend(rival)]) {
      const res = await call('PATCH', `/v1/webhook/${id}`, headers, {
        retryPolicy: { backoffSeconds: 60 },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(WEBHOOK_NOT_FOUND);
    }
    expect(await columns(id)).toEqual(DEFAULTS);
  });
});
