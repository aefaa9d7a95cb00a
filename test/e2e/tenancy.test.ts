import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/auth/api-keys.ts';
import { createClientId } from '../../src/auth/client-ids.ts';
import {
  apiKeys,
  clientIds,
  payeeDestinations,
  securePayments,
  webhooks,
} from '../../src/db/schema.ts';
import {
  activateDestination,
  issueNonce,
  resolveTarget,
} from '../../src/destinations/destinations.ts';
import type { RouteEntry } from '../../src/http/route-table.ts';
import { createTestApp, type TestApp } from '../app.ts';

/**
 * Tenant isolation, for every route the app serves: account B's API key, client ID and session
 * never read or change account A's objects. The matrix is generated from the route table, so a
 * new route is checked as soon as it exists; a route with a path parameter or body this file
 * does not know fails until a fixture is added below.
 */

const WALLET_A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

interface Tenant {
  accountId: string;
  apiKey: string;
  apiKeyId: string;
  clientId: string;
  clientIdRowId: string;
  sessionToken: string;
}

let t: TestApp;
let a: Tenant;
let b: Tenant;
/** A's objects, by the path or query parameter that names them. */
let objects: Record<string, string>;

async function tenant(email: string): Promise<Tenant> {
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    payload: { email, password: 'a long enough password' },
  });
  const { accountId, sessionToken } = registered.json();
  const key = await issueApiKey(t.db, accountId, 'matrix');
  const client = await createClientId(t.db, { accountId, label: 'Backend', allowedDomains: [] });
  return {
    accountId,
    apiKey: key.apiKey,
    apiKeyId: key.id,
    clientId: client.clientId,
    clientIdRowId: client.id,
    sessionToken,
  };
}

beforeAll(async () => {
  t = await createTestApp();
  a = await tenant('a@example.com');
  b = await tenant('b@example.com');

  const target = resolveTarget(t.chains, {
    walletAddress: WALLET_A,
    chainId: 8453,
    tokenAddress: USDC_BASE,
  });
  const destination = await activateDestination(t.db, t.clock, a.accountId, target);
  const asA = { 'x-api-key': a.apiKey };
  const link = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: asA,
    payload: { requests: [{ destinationId: destination.destinationId, amount: '5' }] },
  });
  const webhook = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-client-id': a.clientId },
    payload: { url: 'https://hooks.a.example/payreq' },
  });
  const sent = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook/test',
    headers: { 'x-client-id': a.clientId },
    payload: { eventType: 'payment.confirmed' },
  });
  const nonce = await issueNonce(t.db, t.clock, a.accountId, 'add', target);
  objects = {
    token: link.json().token,
    requestId: link.json().requestIds[0],
    destinationId: destination.destinationId,
    webhookId: webhook.json().id,
    deliveryId: sent.json().deliveryIds[0],
    clientIdRowId: a.clientIdRowId,
    clientId: a.clientId,
    apiKeyId: a.apiKeyId,
    nonce: nonce.nonce,
    wallet: WALLET_A,
  };
});
afterAll(() => t.close());

/** Path parameters: which of A's objects each names. `:id` depends on the resource. */
function pathValue(route: RouteEntry, param: string): string | undefined {
  if (param === 'id') {
    if (route.url.startsWith('/v1/webhook')) return objects.webhookId;
    if (route.url.includes('/client-ids')) return objects.clientIdRowId;
    if (route.url.startsWith('/v1/api-keys')) return objects.apiKeyId;
    return undefined;
  }
  if (param === 'currencyId') return 'USDC-base'; // public reference data, owned by no one
  return objects[param];
}

/** Query strings for routes that need one to reach A's data. */
function query(route: RouteEntry): string {
  const byRoute: Record<string, string> = {
    'GET /v2/payments': `requestId=${objects.requestId}`,
    'GET /v2/payee-destination': `walletAddress=${objects.wallet}`,
    'GET /v2/payee-destination/signing-data': `walletAddress=${objects.wallet}&action=add&tokenAddress=${USDC_BASE}&chainId=8453`,
    'GET /v1/payee-destination/lookup': `destinationId=${encodeURIComponent(objects.destinationId ?? '')}`,
    'GET /v1/payee-destination/payout-lookup': `walletAddress=${objects.wallet}`,
    'GET /v2/secure-payments': `requestId=${objects.requestId}`,
    'GET /v2/request': `walletAddress=${objects.wallet}`,
  };
  return byRoute[`${route.method} ${route.url}`] ?? '';
}

/** Bodies that pass validation, so the ownership check is what answers. */
function body(route: RouteEntry): object | undefined {
  const bodies: Record<string, object> = {
    'POST /v2/secure-payments': {
      requests: [{ destinationId: objects.destinationId, amount: '1' }],
    },
    'POST /v2/secure-payments/:token/calldata': {},
    'POST /v2/payee-destination': { signature: `0x${'1'.repeat(130)}`, nonce: objects.nonce },
    'DELETE /v2/payee-destination/:destinationId': {
      signature: `0x${'1'.repeat(130)}`,
      nonce: objects.nonce,
    },
    'POST /v2/request': {
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: WALLET_A,
    },
    'POST /v1/webhook': { url: 'https://hooks.b.example/payreq' },
    'PUT /v1/webhook/:id': { active: false },
    'POST /v1/webhook/test': { eventType: 'payment.confirmed' },
    'PUT /v1/client-ids/:id': { label: 'taken over' },
    'PUT /v2/client-ids/:id': { label: 'taken over' },
    'POST /v1/client-ids': { label: 'B', allowedDomains: [] },
    'POST /v2/client-ids': { label: 'B', allowedDomains: ['https://b.example'] },
    'POST /v1/api-keys': { label: 'B' },
    'POST /v1/payee-destination': { tokenAddress: USDC_BASE, chainId: 8453 },
    'PUT /v1/payee-destination': { tokenAddress: USDC_BASE, chainId: 8453 },
    'PATCH /v1/payee-destination/deactivate': { destinationId: objects.destinationId },
    'POST /v2/orchestrators/client-ids': { clientId: objects.clientId },
    'POST /v1/auth/logout': {},
  };
  return bodies[`${route.method} ${route.url}`];
}

/** Routes that act on the caller's own session only (running them would end B's session). */
const SELF_ONLY = new Set(['POST /v1/auth/logout']);

/** Routes that deliberately answer about anyone's data (documented where they are built). */
const PUBLIC_BY_DESIGN = new Set(['GET /v1/payee-destination/payout-lookup']);

function credentials(tenantB: Tenant, kind: string): Record<string, string> | null {
  switch (kind) {
    case 'apiKey':
      return { 'x-api-key': tenantB.apiKey };
    case 'clientId':
      return { 'x-client-id': tenantB.clientId };
    case 'session':
      return { authorization: `Bearer ${tenantB.sessionToken}` };
    default:
      return null; // B has no orchestrator key; orchestrator routes are checked with B's others
  }
}

describe('tenant isolation', () => {
  it('refuses account B on every route that names account A’s objects, and leaks nothing', async () => {
    const routes = t.routes.filter((r) => !r.hidden && r.auth !== undefined);
    expect(routes.length).toBeGreaterThan(45);
    const secrets = [
      objects.token,
      objects.requestId,
      objects.destinationId,
      objects.webhookId,
      objects.deliveryId,
      objects.clientId,
      objects.apiKeyId,
    ];
    const checked: string[] = [];
    const unknown: string[] = [];

    for (const route of routes) {
      const key = `${route.method} ${route.url}`;
      if (SELF_ONLY.has(key)) continue;
      const params = [...route.url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] ?? '');
      let url = route.url;
      for (const param of params) {
        const value = pathValue(route, param);
        if (value === undefined) unknown.push(`${key}: path parameter ${param}`);
        url = url.replace(`:${param}`, encodeURIComponent(value ?? ''));
      }
      const q = query(route);
      const payload = body(route);
      if (
        ['POST', 'PUT', 'PATCH'].includes(route.method) &&
        payload === undefined &&
        route.url !== '/v1/webhook/:id/deliveries/:deliveryId/redeliver'
      ) {
        unknown.push(`${key}: body`);
        continue;
      }
      // Every credential B holds, including those the route does not take.
      for (const kind of ['apiKey', 'clientId', 'session']) {
        const headers = credentials(b, kind);
        if (!headers) continue;
        const res = await t.app.inject({
          method: route.method,
          url: q ? `${url}?${q}` : url,
          headers,
          ...(payload !== undefined && { payload }),
        });
        const name = `${key} as B's ${kind} → ${res.statusCode}`;
        checked.push(name);
        const namesA = params.some((p) => p !== 'currencyId');
        if (namesA)
          expect([400, 403, 404], `${name}: ${res.body.slice(0, 200)}`).toContain(res.statusCode);
        if (!PUBLIC_BY_DESIGN.has(key)) {
          const sent = `${url}?${q} ${JSON.stringify(payload ?? {})}`;
          for (const secret of secrets) {
            if (secret && !sent.includes(secret) && !sent.includes(encodeURIComponent(secret))) {
              expect(res.body.includes(secret), `${name} leaked ${secret}`).toBe(false);
            }
          }
        }
      }
    }
    expect(unknown, 'routes this matrix cannot build a request for: add fixtures').toEqual([]);
    expect(checked.length).toBeGreaterThan(140);

    // Nothing of A's changed.
    const [link] = await t.db
      .select()
      .from(securePayments)
      .where(eq(securePayments.token, objects.token ?? ''));
    expect(link?.status).toBe('pending');
    const [hook] = await t.db
      .select()
      .from(webhooks)
      .where(eq(webhooks.id, objects.webhookId ?? ''));
    expect(hook).toMatchObject({ active: true, deletedAt: null });
    const [client] = await t.db.select().from(clientIds).where(eq(clientIds.id, a.clientIdRowId));
    expect(client).toMatchObject({ status: 'active', label: 'Backend' });
    const [key] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, a.apiKeyId));
    expect(key?.revokedAt).toBeNull();
    const [destination] = await t.db
      .select()
      .from(payeeDestinations)
      .where(eq(payeeDestinations.destinationId, objects.destinationId ?? ''));
    expect(destination?.active).toBe(true);
    const stillA = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${objects.token}`,
      headers: { 'x-api-key': a.apiKey },
    });
    expect(stillA.statusCode).toBe(200);
  });
});
