import { asc, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { apiKeys, clientIds } from '../db/schema.ts';
import { digestSecret } from './credentials.ts';

/** API keys on `/v1/api-keys`, for a signed-in user: shown once, listed without the key, revoked for good. */

const CURRENCY = '/v2/currencies?id=USDC-base';
const SESSION = 'a session (session_token cookie or Authorization: Bearer)';

interface Caller {
  readonly accountId: string;
  readonly session: Record<string, string>;
  readonly token: string;
}

let t: TestApp;
let a: Caller;
let b: Caller;

async function register(email: string): Promise<Caller> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    payload: { email, password: 'a long enough password' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const { accountId, sessionToken } = res.json();
  return { accountId, token: sessionToken, session: { authorization: `Bearer ${sessionToken}` } };
}

beforeAll(async () => {
  t = await createTestApp();
  a = await register('alice@example.com');
  b = await register('bob@example.com');
});
afterAll(() => t.close());

interface Issued {
  id: string;
  apiKey: string;
  prefix: string;
  label: string | null;
  createdAt: string;
}

async function issue(caller: Caller, payload: object = {}): Promise<Issued> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/api-keys',
    headers: caller.session,
    payload,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

function currencies(apiKey: string) {
  return t.app.inject({ method: 'GET', url: CURRENCY, headers: { 'x-api-key': apiKey } });
}

/** The credential tables, minus the background `lastUsedAt` the auth hook writes on any request. */
async function snapshot() {
  const keys = await t.db.select().from(apiKeys).orderBy(asc(apiKeys.id));
  const clients = await t.db.select().from(clientIds).orderBy(asc(clientIds.id));
  return {
    counts: { apiKeys: keys.length, clientIds: clients.length },
    apiKeys: keys.map(({ lastUsedAt: _, ...row }) => row),
    clientIds: clients.map(({ lastUsedAt: _, ...row }) => row),
  };
}

async function refused(request: InjectOptions, status: number, body: object) {
  const before = await snapshot();
  const res = await t.app.inject(request);
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toEqual(body);
  expect(await snapshot()).toEqual(before);
}

const invalid = (field: string, message: string) => ({
  statusCode: 400,
  message: 'Validation failed',
  error: 'Bad Request',
  code: 'validation_failed',
  errors: [{ field, message }],
});
const NOT_FOUND = {
  statusCode: 404,
  message: 'API key not found',
  error: 'Not Found',
  code: 'api_key_not_found',
};

describe('POST /v1/api-keys', () => {
  it('returns the key once, with its prefix, trimmed label and creation time', async () => {
    const key = await issue(a, { label: '  Server  ' });
    expect(key).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      apiKey: expect.stringMatching(/^sk_[A-Za-z0-9_-]{43}$/),
      prefix: key.apiKey.slice(0, 11),
      label: 'Server',
      createdAt: t.clock.now().toISOString(),
    });
    expect((await issue(a)).label).toBeNull();
  });

  it('makes a key that works as x-api-key, for the session’s account', async () => {
    const key = await issue(a);
    const res = await currencies(key.apiKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: 'USDC-base' });
    // The key acts for the account: client IDs it makes on /v2 are the session's account's.
    const made = await t.app.inject({
      method: 'POST',
      url: '/v2/client-ids',
      headers: { 'x-api-key': key.apiKey },
      payload: { label: 'Via key', allowedDomains: ['https://shop.example'] },
    });
    const [row] = await t.db.select().from(clientIds).where(eq(clientIds.id, made.json().id));
    expect(row?.accountId).toBe(a.accountId);
  });

  it('keeps no key in clear: rows hold the lookup prefix and the SHA-256 digest only', async () => {
    const key = await issue(a, { label: 'Audit' });
    const rows = await t.db.select().from(apiKeys);
    expect(JSON.stringify(rows)).not.toContain(key.apiKey);
    expect(JSON.stringify(rows)).not.toContain(key.apiKey.slice(11));
    const [row] = rows.filter((r) => r.id === key.id);
    expect(row).toMatchObject({
      accountId: a.accountId,
      prefix: key.prefix,
      keyHash: digestSecret(key.apiKey),
      revokedAt: null,
    });
    expect(row?.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(t.logs.text()).not.toContain(key.apiKey);
  });

  it.each([
    [{ label: '' }, 'label', 'must be 1 to 100 characters'],
    [{ label: '   ' }, 'label', 'must be 1 to 100 characters'],
    [{ label: 'x'.repeat(101) }, 'label', 'must be 1 to 100 characters'],
    [{ label: 5 }, 'label', 'must be string'],
    [{ label: null }, 'label', 'must be string'],
  ])('answers 400 for %j and writes nothing', async (payload, field, message) => {
    await refused(
      { method: 'POST', url: '/v1/api-keys', headers: a.session, payload },
      400,
      invalid(field, message),
    );
  });

  it('takes only a session: an API key cannot mint more keys', async () => {
    const key = await issue(a);
    await refused(
      {
        method: 'POST',
        url: '/v1/api-keys',
        headers: { 'x-api-key': key.apiKey },
        payload: {},
      },
      403,
      {
        statusCode: 403,
        message: `This endpoint does not accept x-api-key; use ${SESSION}`,
        error: 'Forbidden',
        code: 'credential_not_accepted',
      },
    );
    for (const [method, url] of [
      ['POST', '/v1/api-keys'],
      ['GET', '/v1/api-keys'],
      ['DELETE', `/v1/api-keys/${key.id}`],
    ] as const) {
      await refused({ method, url, ...(method === 'POST' && { payload: {} }) }, 401, {
        statusCode: 401,
        message: 'Unauthorized',
        error: 'Unauthorized',
        code: 'missing_credentials',
        errors: [{ field: 'credentials', message: `Missing credentials: send ${SESSION}` }],
      });
    }
  });

  it('accepts the session cookie set at registration', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/api-keys',
      headers: { cookie: `session_token=${a.token}` },
      payload: { label: 'cookie' },
    });
    expect(res.statusCode, res.body).toBe(201);
  });
});

describe('GET /v1/api-keys', () => {
  it('lists the account’s keys, revoked ones included, never the key or its digest', async () => {
    const fresh = await register('carol@example.com');
    expect(
      (await t.app.inject({ method: 'GET', url: '/v1/api-keys', headers: fresh.session })).json(),
    ).toEqual([]);
    const first = await issue(fresh, { label: 'One' });
    t.clock.advance(1_000);
    const second = await issue(fresh);
    t.clock.advance(1_000);
    await t.app.inject({
      method: 'DELETE',
      url: `/v1/api-keys/${first.id}`,
      headers: fresh.session,
    });

    const res = await t.app.inject({ method: 'GET', url: '/v1/api-keys', headers: fresh.session });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        id: first.id,
        prefix: first.prefix,
        label: 'One',
        createdAt: first.createdAt,
        lastUsedAt: null,
        revokedAt: t.clock.now().toISOString(),
      },
      {
        id: second.id,
        prefix: second.prefix,
        label: null,
        createdAt: second.createdAt,
        lastUsedAt: null,
        revokedAt: null,
      },
    ]);
    const [row] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, second.id));
    for (const secret of [first.apiKey, second.apiKey, row?.keyHash ?? 'missing']) {
      expect(res.body).not.toContain(secret);
    }
  });

  it('shows lastUsedAt once a key is used', async () => {
    const key = await issue(a, { label: 'Used' });
    expect((await currencies(key.apiKey)).statusCode).toBe(200);
    await vi.waitFor(async () => {
      const list = (
        await t.app.inject({ method: 'GET', url: '/v1/api-keys', headers: a.session })
      ).json() as { id: string; lastUsedAt: string | null }[];
      expect(list.find((k) => k.id === key.id)?.lastUsedAt).toBe(t.clock.now().toISOString());
    });
  });
});

describe('DELETE /v1/api-keys/:id', () => {
  it('revokes the key: it stops working at once, and revoking again answers the first revocation', async () => {
    const key = await issue(a);
    expect((await currencies(key.apiKey)).statusCode).toBe(200);
    t.clock.advance(5_000);
    const revokedAt = t.clock.now().toISOString();
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/v1/api-keys/${key.id}`,
      headers: a.session,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ id: key.id, revokedAt });

    const use = await currencies(key.apiKey);
    expect(use.statusCode).toBe(401);
    expect(use.json()).toEqual({
      statusCode: 401,
      message: 'Unauthorized',
      error: 'Unauthorized',
      code: 'revoked_api_key',
      errors: [{ field: 'x-api-key', message: 'API key has been revoked' }],
    });
    const [row] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(row?.revokedAt?.toISOString()).toBe(revokedAt);

    t.clock.advance(5_000);
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/v1/api-keys/${key.id}`,
      headers: a.session,
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ id: key.id, revokedAt });
  });

  it('answers 404 for an unknown uuid or a malformed id, writing nothing', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', 'sk_abc']) {
      await refused(
        { method: 'DELETE', url: `/v1/api-keys/${id}`, headers: a.session },
        404,
        NOT_FOUND,
      );
    }
  });

  it('never lets one account list or revoke another’s keys, either way', async () => {
    const keyA = await issue(a, { label: 'A' });
    const keyB = await issue(b, { label: 'B' });
    for (const [caller, target] of [
      [a, keyB],
      [b, keyA],
    ] as const) {
      await refused(
        { method: 'DELETE', url: `/v1/api-keys/${target.id}`, headers: caller.session },
        404,
        NOT_FOUND,
      );
      const list = await t.app.inject({
        method: 'GET',
        url: '/v1/api-keys',
        headers: caller.session,
      });
      expect(list.body).not.toContain(target.id);
      expect(list.body).not.toContain(target.prefix);
      const ids = (list.json() as { id: string }[]).map((k) => k.id);
      const own = await t.db.select().from(apiKeys).where(eq(apiKeys.accountId, caller.accountId));
      expect(ids.sort()).toEqual(own.map((k) => k.id).sort());
    }
    expect((await currencies(keyA.apiKey)).statusCode).toBe(200);
    expect((await currencies(keyB.apiKey)).statusCode).toBe(200);
  });
});
