import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, SHOP_ORIGIN, type Tenant } from '../../test/fixtures.ts';
import { issueApiKey, revokeAccountApiKey } from '../auth/api-keys.ts';
import { apiKeys, clientIds, orchestratorKeys } from '../db/schema.ts';
import { CREDENTIAL_CACHE_MS } from '../http/credential-cache.ts';
import { accountIdOf } from '../http/principal.ts';
import { linkClientId } from '../orchestrators/links.ts';
import {
  createOrchestrator,
  revokeOrchestratorKeys,
  rotateOrchestratorKey,
} from '../orchestrators/orchestrators.ts';

const CURRENCY = '/v2/currencies?id=USDC-base';
/** A route that needs a credential (GET /v2/currencies also answers anonymous callers). */
const GUARDED = '/v2/request';
const MISSING =
  'Missing credentials: send x-api-key or x-client-id or a session (session_token cookie or Authorization: Bearer)';

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await createTestApp({
    extend: (app) => {
      // A route for the orchestrator pair, which no public route of this issue uses yet.
      app.get('/test/pair', { config: { auth: ['orchestratorPair'] } }, async (request) => ({
        accountId: accountIdOf(request),
        kind: request.principal?.kind,
      }));
    },
  });
  tenant = await createTenant(t.db);
});
afterAll(() => t.close());

function get(url: string, headers: Record<string, string>) {
  return t.app.inject({ method: 'GET', url, headers });
}

describe('API keys', () => {
  it('accepts a valid key', async () => {
    const res = await get(CURRENCY, { 'x-api-key': tenant.apiKey });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: 'USDC-base' });
  });

  it('answers 401 with the envelope when no credential is sent', async () => {
    const res = await get(GUARDED, {});
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      statusCode: 401,
      message: 'Unauthorized',
      error: 'Unauthorized',
      code: 'missing_credentials',
      errors: [{ field: 'credentials', message: MISSING }],
    });
  });

  it.each([
    ['garbage', 'not-a-key'],
    ['right shape, unknown key', `sk_${'A'.repeat(43)}`],
    ['a valid key with one character changed', 'flip'],
    ['empty', ' '],
  ])('answers 401 for a malformed or unknown key (%s)', async (_name, value) => {
    const key =
      value === 'flip'
        ? `${tenant.apiKey.slice(0, -1)}${tenant.apiKey.endsWith('A') ? 'B' : 'A'}`
        : value;
    const res = await get(GUARDED, { 'x-api-key': key });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe('Unauthorized');
    expect(res.json().errors[0].message).toBe(value === ' ' ? MISSING : 'Invalid API key');
  });

  it('trusts a key it looked up for CREDENTIAL_CACHE_MS, unless it was revoked here', async () => {
    const issued = await issueApiKey(t.db, tenant.accountId, 'cached');
    const key = { 'x-api-key': issued.apiKey };
    expect((await get(CURRENCY, key)).statusCode).toBe(200);
    // Revoked by another process (the CLI, another instance): this one does not ask again
    // until the lifetime is over, then refuses it.
    await t.db.update(apiKeys).set({ revokedAt: t.clock.now() }).where(eq(apiKeys.id, issued.id));
    t.clock.advance(CREDENTIAL_CACHE_MS - 1);
    expect((await get(CURRENCY, key)).statusCode).toBe(200);
    t.clock.advance(1);
    expect((await get(CURRENCY, key)).statusCode).toBe(401);

    // Revoked through this process (the API, a signed-in user): refused at once.
    const second = await issueApiKey(t.db, tenant.accountId, 'cached too');
    const secondKey = { 'x-api-key': second.apiKey };
    expect((await get(CURRENCY, secondKey)).statusCode).toBe(200);
    await revokeAccountApiKey(t.db, t.clock, tenant.accountId, second.id);
    expect((await get(CURRENCY, secondKey)).statusCode).toBe(401);
  });

  it('refuses a revoked key, which never works again', async () => {
    const issued = await issueApiKey(t.db, tenant.accountId, 'to revoke');
    expect((await get(CURRENCY, { 'x-api-key': issued.apiKey })).statusCode).toBe(200);
    const revoked = await revokeAccountApiKey(t.db, t.clock, tenant.accountId, issued.id);
    expect(revoked?.id).toBe(issued.id);
    const res = await get(CURRENCY, { 'x-api-key': issued.apiKey });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({
      message: 'Unauthorized',
      code: 'revoked_api_key',
      errors: [{ field: 'x-api-key', message: 'API key has been revoked' }],
    });
    t.clock.advance(1_000);
    // Revoking again changes nothing: the first revocation stands.
    expect(await revokeAccountApiKey(t.db, t.clock, tenant.accountId, issued.id)).toEqual(revoked);
    expect((await get(CURRENCY, { 'x-api-key': issued.apiKey })).statusCode).toBe(401);
  });

  it('stores only a digest and a lookup prefix, never the key', async () => {
    const rows = await t.db.select().from(apiKeys).where(eq(apiKeys.accountId, tenant.accountId));
    expect(rows.length).toBeGreaterThan(0);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(tenant.apiKey);
    const row = rows.find((r) => tenant.apiKey.startsWith(r.prefix));
    expect(row?.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.prefix.length).toBeLessThan(tenant.apiKey.length / 3);
  });
});

describe('client IDs', () => {
  it('accepts a browser client ID from its allowed origin', async () => {
    const res = await get(CURRENCY, { 'x-client-id': tenant.browserClientId, origin: SHOP_ORIGIN });
    expect(res.statusCode).toBe(200);
  });

  it('normalises the Origin header (case, default port) before comparing', async () => {
    const res = await get(CURRENCY, {
      'x-client-id': tenant.browserClientId,
      origin: 'HTTPS://Shop.Example:443',
    });
    expect(res.statusCode).toBe(200);
  });

  it.each([
    ['another site', 'https://evil.example'],
    ['http instead of https', 'http://shop.example'],
    ['a subdomain', 'https://pay.shop.example'],
    ['the null origin', 'null'],
  ])('answers 403 from a wrong origin (%s)', async (_name, origin) => {
    const res = await get(CURRENCY, { 'x-client-id': tenant.browserClientId, origin });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      message: 'Origin is not allowed for this client ID',
      error: 'Forbidden',
    });
  });

  it('answers 403 when a browser client ID comes without Origin', async () => {
    const res = await get(CURRENCY, { 'x-client-id': tenant.browserClientId });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('Origin header is required');
  });

  describe('a same-origin GET, which browsers send without Origin', () => {
    // The API's own origin in the test app (BASE_URL), as the pay page served there calls it.
    const API_HOST = 'api.payreq.test';
    let sameSite: string;
    beforeAll(async () => {
      const other = await createTenant(t.db, 'Same origin');
      sameSite = other.backendClientId;
      await t.db
        .update(clientIds)
        .set({ allowedDomains: [`http://${API_HOST}`] })
        .where(eq(clientIds.clientId, sameSite));
    });

    it('takes the server’s own origin when Sec-Fetch-Site says same-origin', async () => {
      const res = await get(CURRENCY, {
        'x-client-id': sameSite,
        'sec-fetch-site': 'same-origin',
        host: API_HOST,
      });
      expect(res.statusCode, res.body).toBe(200);
    });

    it('still requires Origin from a cross-site request', async () => {
      const res = await get(CURRENCY, {
        'x-client-id': sameSite,
        'sec-fetch-site': 'cross-site',
        host: API_HOST,
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('origin_required');
    });

    it('refuses a same-origin request to another host than the allowed one', async () => {
      const res = await get(CURRENCY, {
        'x-client-id': sameSite,
        'sec-fetch-site': 'same-origin',
        host: 'other.payreq.test',
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('origin_not_allowed');
    });

    it('prefers the Origin header when a browser sends it', async () => {
      const res = await get(CURRENCY, {
        'x-client-id': sameSite,
        'sec-fetch-site': 'same-origin',
        host: API_HOST,
        origin: 'https://evil.example',
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('origin_not_allowed');
    });
  });

  it('accepts a backend client ID with or without Origin', async () => {
    expect((await get(CURRENCY, { 'x-client-id': tenant.backendClientId })).statusCode).toBe(200);
    const withOrigin = await get(CURRENCY, {
      'x-client-id': tenant.backendClientId,
      origin: 'https://anything.example',
    });
    expect(withOrigin.statusCode).toBe(200);
  });

  it('answers 401 for an unknown client ID', async () => {
    const res = await get(CURRENCY, { 'x-client-id': 'cli_doesnotexist', origin: SHOP_ORIGIN });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({
      message: 'Unauthorized',
      errors: [{ field: 'x-client-id', message: 'Invalid client ID' }],
    });
  });

  it('answers 403 for an inactive client ID and works again once reactivated', async () => {
    // Changed in the database as another process would: seen once the cache's lifetime is over.
    const [row] = await t.db
      .update(clientIds)
      .set({ status: 'inactive' })
      .where(eq(clientIds.clientId, tenant.backendClientId))
      .returning();
    expect(row?.status).toBe('inactive');
    t.clock.advance(CREDENTIAL_CACHE_MS);
    const res = await get(CURRENCY, { 'x-client-id': tenant.backendClientId });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('Client ID is inactive');
    await t.db
      .update(clientIds)
      .set({ status: 'active' })
      .where(eq(clientIds.clientId, tenant.backendClientId));
    t.clock.advance(CREDENTIAL_CACHE_MS);
    expect((await get(CURRENCY, { 'x-client-id': tenant.backendClientId })).statusCode).toBe(200);
  });

  it('answers 403 for a revoked client ID: known, but never allowed again', async () => {
    const other = await createTenant(t.db, 'Revoked');
    await t.db
      .update(clientIds)
      .set({ status: 'revoked' })
      .where(eq(clientIds.clientId, other.backendClientId));
    const res = await get(CURRENCY, { 'x-client-id': other.backendClientId });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      statusCode: 403,
      message: 'Client ID has been revoked',
      error: 'Forbidden',
      code: 'revoked_client_id',
    });
  });

  it('records lastUsedAt on the first use, then at most once per 60 s, and never for a refused use', async () => {
    const other = await createTenant(t.db, 'Usage');
    const lastUsed = async () => {
      // Every write the recorder started has landed before the row is read.
      await t.usage.flush();
      const [row] = await t.db
        .select({ lastUsedAt: clientIds.lastUsedAt })
        .from(clientIds)
        .where(eq(clientIds.clientId, other.browserClientId));
      return row?.lastUsedAt?.toISOString() ?? null;
    };
    const use = (origin?: string) =>
      get(CURRENCY, {
        'x-client-id': other.browserClientId,
        ...(origin !== undefined && { origin }),
      });
    expect(await lastUsed()).toBeNull();

    const first = t.clock.now().toISOString();
    expect((await use(SHOP_ORIGIN)).statusCode).toBe(200);
    expect(await lastUsed()).toBe(first);

    // Within the window: used, but not written again.
    t.clock.advance(59_999);
    expect((await use(SHOP_ORIGIN)).statusCode).toBe(200);
    expect(await lastUsed()).toBe(first);

    t.clock.advance(1);
    const second = t.clock.now().toISOString();
    expect((await use(SHOP_ORIGIN)).statusCode).toBe(200);
    expect(await lastUsed()).toBe(second);

    // Refused uses, each past the window, where a counted use would write.
    t.clock.advance(60_000);
    expect((await use('https://evil.example')).statusCode).toBe(403);
    expect(await lastUsed()).toBe(second);
    t.clock.advance(60_000);
    expect((await use()).statusCode).toBe(403);
    expect(await lastUsed()).toBe(second);
    for (const status of ['inactive', 'revoked'] as const) {
      await t.db
        .update(clientIds)
        .set({ status })
        .where(eq(clientIds.clientId, other.browserClientId));
      t.clock.advance(60_000);
      const refused = await use(SHOP_ORIGIN);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe(`${status}_client_id`);
      expect(await lastUsed()).toBe(second);
    }
  });
});

describe('orchestrator keys', () => {
  it('accepts a valid orchestrator key on orchestrator routes', async () => {
    const { orchestratorKey } = await createOrchestrator(t.db, 'Platform');
    const res = await get('/v2/orchestrators/client-ids', {
      'x-orchestrator-key': orchestratorKey,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ links: [], total: 0, page: 1, limit: 20 });
  });

  it('answers 401 for an unknown or revoked orchestrator key', async () => {
    const unknown = await get('/v2/orchestrators/client-ids', {
      'x-orchestrator-key': `orc_${'x'.repeat(43)}`,
    });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toMatchObject({
      message: 'Unauthorized',
      errors: [{ field: 'x-orchestrator-key', message: 'Invalid orchestrator key' }],
    });

    const { orchestratorId, orchestratorKey } = await createOrchestrator(t.db, 'Gone');
    expect(await revokeOrchestratorKeys(t.db, orchestratorId, t.clock.now())).toBe(1);
    const revoked = await get('/v2/orchestrators/client-ids', {
      'x-orchestrator-key': orchestratorKey,
    });
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json()).toMatchObject({
      message: 'Unauthorized',
      errors: [{ field: 'x-orchestrator-key', message: 'Orchestrator key has been revoked' }],
    });
  });

  it('leaves exactly one working key after two rotations at once', async () => {
    const { orchestratorId, orchestratorKey } = await createOrchestrator(t.db, 'Rotated');
    const rotations = await Promise.all([
      rotateOrchestratorKey(t.db, t.clock, orchestratorId),
      rotateOrchestratorKey(t.db, t.clock, orchestratorId),
    ]);
    // One after the other: the first revokes the original key, the second the first's.
    expect(rotations.map((rotation) => rotation?.revoked)).toEqual([1, 1]);
    const statuses = await Promise.all(
      [orchestratorKey, ...rotations.map((rotation) => rotation?.issued.key ?? '')].map(
        async (key) =>
          (await get('/v2/orchestrators/client-ids', { 'x-orchestrator-key': key })).statusCode,
      ),
    );
    expect(statuses.sort()).toEqual([200, 401, 401]);
    expect(await rotateOrchestratorKey(t.db, t.clock, crypto.randomUUID())).toBeNull();
    expect(await rotateOrchestratorKey(t.db, t.clock, 'nope')).toBeNull();
  });

  it('stores only a digest of the orchestrator key', async () => {
    const { orchestratorId, orchestratorKey } = await createOrchestrator(t.db, 'Hashed');
    expect(orchestratorKey).toMatch(/^orc_[A-Za-z0-9_-]{43}$/);
    const rows = await t.db
      .select()
      .from(orchestratorKeys)
      .where(eq(orchestratorKeys.orchestratorId, orchestratorId));
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(orchestratorKey);
    expect(rows[0]?.keyHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers 403 when a valid credential of the wrong kind is sent', async () => {
    const { orchestratorKey } = await createOrchestrator(t.db, 'Wrong door');
    const res = await get(CURRENCY, { 'x-orchestrator-key': orchestratorKey });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'credential_not_accepted' });
    const apiKeyOnOrchestratorRoute = await get('/v2/orchestrators/client-ids', {
      'x-api-key': tenant.apiKey,
    });
    expect(apiKeyOnOrchestratorRoute.statusCode).toBe(403);
  });

  it('answers 401, not 403, when the credential of the wrong kind is also invalid', async () => {
    const res = await get(CURRENCY, { 'x-orchestrator-key': `orc_${'y'.repeat(43)}` });
    expect(res.statusCode).toBe(401);
  });

  it('pairs an orchestrator key with a linked client ID and acts for its account', async () => {
    const { orchestratorId, orchestratorKey } = await createOrchestrator(t.db, 'Pair');
    const platform = await createTenant(t.db, 'Platform tenant');
    const headers = {
      'x-orchestrator-key': orchestratorKey,
      'x-client-id': platform.browserClientId,
    };

    const unlinked = await get('/test/pair', headers);
    expect(unlinked.statusCode).toBe(403);
    expect(unlinked.json().message).toBe('Client ID is not linked to this orchestrator');

    await linkClientId(t.db, orchestratorId, platform.browserClientId);
    // Server to server: the key vouches for the call, so no Origin is needed.
    const linked = await get('/test/pair', headers);
    expect(linked.statusCode).toBe(200);
    expect(linked.json()).toEqual({ accountId: platform.accountId, kind: 'orchestratorPair' });

    const otherKey = (await createOrchestrator(t.db, 'Stranger')).orchestratorKey;
    const stranger = await get('/test/pair', { ...headers, 'x-orchestrator-key': otherKey });
    expect(stranger.statusCode).toBe(403);

    // Revoked, the client ID answers the pair as it answers alone.
    await t.db
      .update(clientIds)
      .set({ status: 'revoked' })
      .where(eq(clientIds.clientId, platform.browserClientId));
    t.clock.advance(CREDENTIAL_CACHE_MS);
    const revoked = await get('/test/pair', headers);
    expect(revoked.statusCode).toBe(403);
    expect(revoked.json()).toMatchObject({
      message: 'Client ID has been revoked',
      code: 'revoked_client_id',
    });
  });
});
