import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { asKey, call, register, setupWebhookApps, t } from '../../test/webhook-routes.ts';
import { createSecretBox } from '../base/secret-box.ts';
import { webhooks } from '../db/schema.ts';

/**
 * Endpoints whose signing secret no longer opens: the database was sealed with another
 * SECRET_KEY than the one the app now runs with (docs/webhooks.md), or a sealed value was
 * damaged. The list, the switch and the retry policy still answer, the endpoint's secret then
 * masked without its last characters; the others keep theirs.
 */

setupWebhookApps();

const MASKED = /^whsec_\*{8}[A-Za-z0-9_-]{4}$/;
const NO_HINT = 'whsec_********';

interface Listed {
  id: string;
  secret: string;
}

/** Seals the endpoint's secret as a deployment with another SECRET_KEY did. */
async function sealWithAnotherKey(id: string, secret: string): Promise<void> {
  const otherBox = createSecretBox(randomBytes(32));
  await t.db
    .update(webhooks)
    .set({ secretSealed: otherBox.seal(secret, id) })
    .where(eq(webhooks.id, id));
}

async function activeInDatabase(id: string): Promise<boolean | undefined> {
  const [row] = await t.db
    .select({ active: webhooks.active })
    .from(webhooks)
    .where(eq(webhooks.id, id));
  return row?.active;
}

describe('a webhook secret that no longer opens with SECRET_KEY', () => {
  let tenant: Tenant;
  let readable: { id: string; secret: string };
  let resealed: { id: string; secret: string };
  let damaged: { id: string; secret: string };
  beforeAll(async () => {
    tenant = await createTenant(t.db, 'Key rotator');
    readable = await register(asKey(tenant), 'https://hooks.example.com/readable');
    resealed = await register(asKey(tenant), 'https://hooks.example.com/resealed');
    damaged = await register(asKey(tenant), 'https://hooks.example.com/damaged');
    await sealWithAnotherKey(resealed.id, resealed.secret);
    await t.db
      .update(webhooks)
      .set({ secretSealed: 'not a sealed secret' })
      .where(eq(webhooks.id, damaged.id));
  });

  it('lists every endpoint, masking an unreadable secret without its hint', async () => {
    const res = await call('GET', '/v1/webhook', asKey(tenant));
    expect(res.statusCode, res.body).toBe(200);
    const listed = new Map((res.json() as Listed[]).map((w) => [w.id, w.secret]));
    expect([...listed.keys()].sort()).toEqual([readable.id, resealed.id, damaged.id].sort());
    expect(listed.get(readable.id)).toMatch(MASKED);
    expect(listed.get(readable.id)?.slice(-4)).toBe(readable.secret.slice(-4));
    expect(listed.get(resealed.id)).toBe(NO_HINT);
    expect(listed.get(damaged.id)).toBe(NO_HINT);
    expect(res.body).not.toContain(resealed.secret.slice(6));
  });

  it('switches such an endpoint off and on, answering 200 with what it wrote', async () => {
    for (const { id } of [resealed, damaged]) {
      for (const expected of [false, true]) {
        const res = await call('PUT', `/v1/webhook/${id}`, asKey(tenant));
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toMatchObject({ id, active: expected, secret: NO_HINT });
        expect(await activeInDatabase(id)).toBe(expected);
      }
      const set = await call('PUT', `/v1/webhook/${id}`, asKey(tenant), { active: false });
      expect(set.statusCode, set.body).toBe(200);
      expect(set.json()).toMatchObject({ active: false, isActive: false, secret: NO_HINT });
      expect(await activeInDatabase(id)).toBe(false);
    }
  });

  it('changes such an endpoint’s retry policy, answering 200', async () => {
    const res = await call('PATCH', `/v1/webhook/${resealed.id}`, asKey(tenant), {
      retryPolicy: { backoffSeconds: 60 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ secret: NO_HINT, retryPolicy: { backoffSeconds: 60 } });
  });
});
