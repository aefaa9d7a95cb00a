import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { createClientId } from '../auth/client-ids.ts';
import { orchestratorClientLinks, securePayments } from '../db/schema.ts';
import { activateDestination } from '../destinations/destinations.ts';
import { resolveTarget } from '../destinations/target.ts';
import { linkClientId } from './links.ts';
import { createOrchestrator } from './orchestrators.ts';

/**
 * The merchant's view of who takes a fee: each client ID shows the orchestrator linked to it,
 * and the account can unlink it, after which the orchestrator can no longer act for it.
 */

const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const MERCHANT_WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

let t: TestApp;
let merchant: Tenant;
let stranger: Tenant;
let platform: { orchestratorId: string; orchestratorKey: string };
let bound: { id: string; clientId: string };

beforeAll(async () => {
  t = await createTestApp();
  merchant = await createTenant(t.db, 'Merchant');
  stranger = await createTenant(t.db, 'Stranger');
  const target = resolveTarget(t.chains, {
    walletAddress: MERCHANT_WALLET,
    chainId: 8453,
    tokenAddress: USDC_BASE,
  });
  const destination = await activateDestination(t.db, t.clock, merchant.accountId, target);
  platform = await createOrchestrator(t.db, 'Platform');
  bound = await createClientId(t.db, {
    accountId: merchant.accountId,
    label: 'Bound',
    allowedDomains: [],
    payeeDestinationId: destination.destinationId,
  });
  await linkClientId(t.db, platform.orchestratorId, bound.clientId);
});
afterAll(() => t.close());

const asMerchant = { 'x-api-key': () => merchant.apiKey };

function merchantCall(method: 'GET' | 'DELETE', url: string, apiKey = asMerchant['x-api-key']()) {
  return t.app.inject({ method, url, headers: { 'x-api-key': apiKey } });
}

function pairedLink() {
  return t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: { 'x-orchestrator-key': platform.orchestratorKey, 'x-client-id': bound.clientId },
    payload: { requests: [{ amount: '10' }] },
  });
}

async function linkCount(): Promise<number> {
  const rows = await t.db
    .select()
    .from(securePayments)
    .where(eq(securePayments.accountId, merchant.accountId));
  return rows.length;
}

describe('the orchestrator of a client ID, as its account sees it', () => {
  it('is on each client ID of the list and of the read; null where none', async () => {
    const list = await merchantCall('GET', '/v2/client-ids');
    expect(list.statusCode, list.body).toBe(200);
    const [link] = await t.db
      .select()
      .from(orchestratorClientLinks)
      .where(eq(orchestratorClientLinks.clientIdId, bound.id));
    const expected = {
      id: platform.orchestratorId,
      name: 'Platform',
      linkedAt: link?.createdAt.toISOString(),
    };
    const byClientId = new Map(
      list
        .json()
        .map((item: { clientId: string; orchestrator: unknown }) => [
          item.clientId,
          item.orchestrator,
        ]),
    );
    expect(byClientId.get(bound.clientId)).toEqual(expected);
    expect(byClientId.get(merchant.backendClientId)).toBeNull();
    const one = await merchantCall('GET', `/v2/client-ids/${bound.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ clientId: bound.clientId, orchestrator: expected });
  });

  it('is unlinked by the account only; then the orchestrator can no longer create links', async () => {
    const before = await pairedLink();
    expect(before.statusCode, before.body).toBe(201);
    const count = await linkCount();

    const foreign = await merchantCall(
      'DELETE',
      `/v2/client-ids/${bound.id}/orchestrator`,
      stranger.apiKey,
    );
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().code).toBe('client_id_not_found');
    const [still] = await t.db
      .select()
      .from(orchestratorClientLinks)
      .where(eq(orchestratorClientLinks.clientIdId, bound.id));
    expect(still?.status).toBe('active');

    t.clock.advance(60_000);
    const res = await merchantCall('DELETE', `/v2/client-ids/${bound.id}/orchestrator`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      orchestrator: {
        id: platform.orchestratorId,
        name: 'Platform',
        linkedAt: still?.createdAt.toISOString(),
        unlinkedAt: t.clock.now().toISOString(),
      },
    });
    const one = await merchantCall('GET', `/v2/client-ids/${bound.id}`);
    expect(one.json().orchestrator).toBeNull();

    const after = await pairedLink();
    expect(after.statusCode).toBe(403);
    expect(after.json().code).toBe('client_id_not_linked');
    expect(await linkCount()).toBe(count);

    // Final: the orchestrator cannot link it back, and a second unlink finds nothing.
    const relink = await t.app.inject({
      method: 'POST',
      url: '/v2/orchestrators/client-ids',
      headers: { 'x-orchestrator-key': platform.orchestratorKey },
      payload: { clientId: bound.clientId },
    });
    expect(relink.statusCode).toBe(409);
    expect(relink.json().code).toBe('client_id_unlinked');
    const twice = await merchantCall('DELETE', `/v2/client-ids/${bound.id}/orchestrator`);
    expect(twice.statusCode).toBe(404);
    expect(twice.json()).toMatchObject({
      code: 'orchestrator_not_linked',
      message: 'Client ID is not linked to an orchestrator',
    });
    const unknown = await merchantCall('DELETE', '/v2/client-ids/not-a-uuid/orchestrator');
    expect(unknown.json().code).toBe('client_id_not_found');
  });

  it('works the same on /v1/client-ids with the dashboard session', async () => {
    const user = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: 'platform-user@example.com', password: 'a long enough password' },
    });
    expect(user.statusCode, user.body).toBe(201);
    const session = { authorization: `Bearer ${user.json().sessionToken}` };
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/client-ids',
      headers: session,
      payload: { label: 'Dashboard backend', allowedDomains: [] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id, clientId } = created.json();
    await linkClientId(t.db, platform.orchestratorId, clientId);
    const list = await t.app.inject({ method: 'GET', url: '/v1/client-ids', headers: session });
    expect(list.json()).toMatchObject([{ id, orchestrator: { id: platform.orchestratorId } }]);
    const unlink = await t.app.inject({
      method: 'DELETE',
      url: `/v1/client-ids/${id}/orchestrator`,
      headers: session,
    });
    expect(unlink.statusCode, unlink.body).toBe(200);
    const one = await t.app.inject({
      method: 'GET',
      url: `/v1/client-ids/${id}`,
      headers: session,
    });
    expect(one.json()).toMatchObject({ id, orchestrator: null });
  });
});
