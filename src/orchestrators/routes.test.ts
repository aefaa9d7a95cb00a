import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { clientIds } from '../db/schema.ts';
import { createOrchestrator } from './orchestrators.ts';

let t: TestApp;
let tenant: Tenant;
let key: string;
let otherKey: string;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db);
  key = (await createOrchestrator(t.db, 'Platform')).orchestratorKey;
  otherKey = (await createOrchestrator(t.db, 'Rival')).orchestratorKey;
});
afterAll(() => t.close());

function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  orchestratorKey: string,
  payload?: object,
) {
  return t.app.inject({
    method,
    url,
    headers: { 'x-orchestrator-key': orchestratorKey },
    ...(payload && { payload }),
  });
}

describe('orchestrator client-ID links', () => {
  it('links a client ID once; linking again says alreadyLinked', async () => {
    const first = await call('POST', '/v2/orchestrators/client-ids', key, {
      clientId: tenant.browserClientId,
    });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({
      link: { clientId: tenant.browserClientId, status: 'active' },
      alreadyLinked: false,
    });
    const again = await call('POST', '/v2/orchestrators/client-ids', key, {
      clientId: tenant.browserClientId,
    });
    expect(again.statusCode).toBe(200);
    expect(again.json().alreadyLinked).toBe(true);
  });

  it('refuses a client ID that another orchestrator holds', async () => {
    const res = await call('POST', '/v2/orchestrators/client-ids', otherKey, {
      clientId: tenant.browserClientId,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ message: 'Client ID is linked to another orchestrator' });
  });

  it('lists its own links only, paginated', async () => {
    await call('POST', '/v2/orchestrators/client-ids', key, { clientId: tenant.backendClientId });
    const page1 = await call('GET', '/v2/orchestrators/client-ids?page=1&limit=1', key);
    expect(page1.json()).toMatchObject({ total: 2, page: 1, limit: 1 });
    expect(page1.json().links).toHaveLength(1);
    const page2 = await call('GET', '/v2/orchestrators/client-ids?page=2&limit=1', key);
    expect(page2.json().links).toHaveLength(1);
    expect(page2.json().links[0].clientId).not.toBe(page1.json().links[0].clientId);
    const rival = await call('GET', '/v2/orchestrators/client-ids', otherKey);
    expect(rival.json()).toMatchObject({ links: [], total: 0 });
    expect((await call('GET', '/v2/orchestrators/client-ids?limit=101', key)).statusCode).toBe(400);
  });

  it('unlinks for good: the client ID cannot be linked again', async () => {
    const rivalTry = await call(
      'DELETE',
      `/v2/orchestrators/client-ids/${tenant.backendClientId}`,
      otherKey,
    );
    expect(rivalTry.statusCode).toBe(404);
    const logged = t.logs.lines.length;
    const res = await call('DELETE', `/v2/orchestrators/client-ids/${tenant.backendClientId}`, key);
    expect(res.statusCode).toBe(200);
    // A backend client ID is a credential: its log lines name the route, not the value.
    const lines = t.logs.lines.slice(logged).join('');
    expect(lines).toContain('/v2/orchestrators/client-ids/…');
    expect(lines).not.toContain(tenant.backendClientId);
    expect(res.json()).toEqual({ link: { clientId: tenant.backendClientId, status: 'unlinked' } });
    const relink = await call('POST', '/v2/orchestrators/client-ids', key, {
      clientId: tenant.backendClientId,
    });
    expect(relink.statusCode).toBe(409);
    expect(relink.json().message).toBe('Client ID was unlinked and cannot be linked again');
    const twice = await call(
      'DELETE',
      `/v2/orchestrators/client-ids/${tenant.backendClientId}`,
      key,
    );
    expect(twice.statusCode).toBe(404);
  });

  it('answers 404 for an unknown client ID and 400 for a revoked one', async () => {
    const unknown = await call('POST', '/v2/orchestrators/client-ids', key, {
      clientId: 'cli_unknown',
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('Client ID not found');
    const revoked = await createTenant(t.db, 'Revoked');
    await t.db
      .update(clientIds)
      .set({ status: 'revoked' })
      .where(eq(clientIds.clientId, revoked.backendClientId));
    const res = await call('POST', '/v2/orchestrators/client-ids', key, {
      clientId: revoked.backendClientId,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Client ID has been revoked');
  });
});
