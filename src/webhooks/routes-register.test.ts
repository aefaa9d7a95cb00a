import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import {
  asBackend,
  asBrowser,
  asKey,
  call,
  HTTPS_ONLY,
  listIds,
  PRIVATE,
  register,
  setupWebhookApps,
  strictApp,
  t,
  validationFailed,
} from '../../test/webhook-routes.ts';
import { webhooks } from '../db/schema.ts';

/**
 * Registering `/v1/webhook` endpoints through the real app (test/webhook-routes.ts): the answer,
 * the URL rules with and without ALLOW_LOCAL_WEBHOOKS, and the list, each caller seeing its own.
 */

setupWebhookApps({ strict: true });

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
    // The list item's `secret` (Auth API 0.14.0) is masked: its last 4 characters only.
    const masked = `whsec_********${secret.slice(-4)}`;
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.body).not.toContain(secret);
      expect(answer.body).not.toContain(secret.slice('whsec_'.length, -4));
    }
    const listed = (answers[0]?.json() as Record<string, unknown>[] | undefined)?.find(
      (w) => w.id === id,
    );
    expect(listed).toEqual({
      id,
      url: 'https://hooks.example.com/once',
      secret: masked,
      isActive: true,
      active: true,
      clientId: tenant.backendClientId,
      retryPolicy: { backoffSeconds: null, maxDelaySeconds: null, retryForSeconds: null },
      createdAt: t.clock.now().toISOString(),
    });
    expect(answers[2]?.json().secret).toBe(masked);
    expect(answers[3]?.body).not.toContain('whsec_');
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
    tenant = await createTenant(strictApp().db, 'Production');
  });

  it('still accepts a public https URL', async () => {
    await register(asKey(tenant), 'https://hooks.example.com/payreq', strictApp());
  });

  it('refuses http://127.0.0.1 and http://localhost as not https', async () => {
    for (const url of ['http://127.0.0.1:8080/hooks', 'http://localhost:3000/hooks']) {
      const res = await call('POST', '/v1/webhook', asKey(tenant), { url }, strictApp());
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
      const res = await call('POST', '/v1/webhook', asKey(tenant), { url }, strictApp());
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toEqual(validationFailed('url', PRIVATE));
    }
    const rows = await strictApp()
      .db.select()
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
