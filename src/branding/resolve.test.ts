import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { createClientId } from '../auth/client-ids.ts';
import { securePayments } from '../db/schema.ts';
import { activateDestination } from '../destinations/destinations.ts';
import { resolveTarget } from '../destinations/target.ts';
import { linkClientId, unlinkClientId } from '../orchestrators/links.ts';
import { createOrchestrator } from '../orchestrators/orchestrators.ts';
import { resolveOrchestratorBranding } from './resolve.ts';

/**
 * A link's branding on `GET /v2/secure-payments/{token}`: its client ID's row over its
 * orchestrator's row over none; a client ID's row fills its gaps with the page's defaults, never
 * with the orchestrator's.
 */

const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const MERCHANT_WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const URL = '/v2/orchestrators/branding';

let t: TestApp;
let merchant: Tenant;
let destinationId: string;
let key: string;
let orchestratorId: string;

beforeAll(async () => {
  t = await createTestApp();
  merchant = await createTenant(t.db, 'Merchant');
  const target = resolveTarget(t.chains, {
    walletAddress: MERCHANT_WALLET,
    chainId: 8453,
    tokenAddress: USDC_BASE,
  });
  destinationId = (await activateDestination(t.db, t.clock, merchant.accountId, target))
    .destinationId;
  const platform = await createOrchestrator(t.db, 'Platform');
  key = platform.orchestratorKey;
  orchestratorId = platform.orchestratorId;
});
afterAll(() => t.close());

async function clientIdLinked(label: string): Promise<string> {
  const { clientId } = await createClientId(t.db, {
    accountId: merchant.accountId,
    label,
    allowedDomains: [],
  });
  await linkClientId(t.db, orchestratorId, clientId);
  return clientId;
}

async function linkMadeWith(clientId: string | null): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: clientId ? { 'x-client-id': clientId } : { 'x-api-key': merchant.apiKey },
    payload: { requests: [{ destinationId, amount: '10' }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().token;
}

async function brandingOf(token: string): Promise<unknown> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}`,
    headers: { 'x-api-key': merchant.apiKey },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().branding;
}

function brand(payload: object) {
  return t.app.inject({
    method: 'POST',
    url: URL,
    headers: { 'x-orchestrator-key': key },
    payload,
  });
}

const DEFAULT_COLORS = {
  pageBackgroundColor: '#f3f4f6',
  cardBackgroundColor: '#ffffff',
  primaryActionColor: '#00d395',
  primaryTextColor: '#475569',
  secondaryTextColor: '#94a3b8',
};

describe('a link’s branding', () => {
  it('is null with no branding, and for a link made without a client ID', async () => {
    const plain = await clientIdLinked('Plain');
    expect(await brandingOf(await linkMadeWith(plain))).toBeNull();
    expect(await brandingOf(await linkMadeWith(null))).toBeNull();
  });

  it('is the orchestrator’s, over the defaults, for its client IDs without one of their own', async () => {
    const created = await brand({
      logoPath: '/branding/platform.png',
      primaryActionColor: '#ff6600',
      termsPath: '/branding/terms.html',
    });
    expect(created.statusCode, created.body).toBe(201);
    const clientId = await clientIdLinked('Platform-branded');
    expect(await brandingOf(await linkMadeWith(clientId))).toEqual({
      id: created.json().id,
      orchestratorId,
      logoPath: '/branding/platform.png',
      ...DEFAULT_COLORS,
      primaryActionColor: '#ff6600',
      termsPath: '/branding/terms.html',
      displayRequestBranding: false,
    });
    // A link made without a client ID has no orchestrator, so no branding.
    expect(await brandingOf(await linkMadeWith(null))).toBeNull();
  });

  it('is the client ID’s own where it has one, its gaps the defaults’ (not the orchestrator’s)', async () => {
    const clientId = await clientIdLinked('Own brand');
    const token = await linkMadeWith(clientId);
    const created = await brand({
      clientId,
      pageBackgroundColor: '#101010',
      displayRequestBranding: true,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(await brandingOf(token)).toEqual({
      id: created.json().id,
      clientIdId: created.json().clientIdId,
      orchestratorId,
      ...DEFAULT_COLORS,
      pageBackgroundColor: '#101010',
      displayRequestBranding: true,
    });
    // Resolved at each read: an edit shows on links made before it.
    await t.app.inject({
      method: 'PATCH',
      url: URL,
      headers: { 'x-orchestrator-key': key },
      payload: { clientId, logoPath: '/branding/own.webp' },
    });
    expect(await brandingOf(token)).toMatchObject({ logoPath: '/branding/own.webp' });
    // A paid link's 409 carries it too (the paid screen shows the brand).
    await t.db
      .update(securePayments)
      .set({ status: 'completed', completedAt: t.clock.now() })
      .where(eq(securePayments.token, token));
    const paid = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}`,
      headers: { 'x-api-key': merchant.apiKey },
    });
    expect(paid.statusCode).toBe(409);
    expect(paid.json().branding).toMatchObject({
      id: created.json().id,
      logoPath: '/branding/own.webp',
    });
    // Once unlinked, the orchestrator no longer brands the client ID's links.
    await unlinkClientId(t.db, t.clock, orchestratorId, clientId);
    const after = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}`,
      headers: { 'x-api-key': merchant.apiKey },
    });
    expect(after.json().branding).toBeNull();
  });
});

describe('an orchestrator’s own branding', () => {
  it('is its row without a client ID (never a client ID’s), over the defaults; null without one', async () => {
    const platform = await createOrchestrator(t.db, 'Own rows');
    expect(await resolveOrchestratorBranding(t.db, platform.orchestratorId)).toBeNull();
    const { clientId } = await createClientId(t.db, {
      accountId: merchant.accountId,
      label: 'Own rows shop',
      allowedDomains: [],
    });
    await linkClientId(t.db, platform.orchestratorId, clientId);
    const headers = { 'x-orchestrator-key': platform.orchestratorKey };
    const post = (payload: object) => t.app.inject({ method: 'POST', url: URL, headers, payload });
    expect((await post({ clientId, primaryActionColor: '#101010' })).statusCode).toBe(201);
    // Only a client ID's row: the orchestrator has none of its own.
    expect(await resolveOrchestratorBranding(t.db, platform.orchestratorId)).toBeNull();
    const own = await post({ primaryActionColor: '#ff6600', termsPath: '/branding/terms.html' });
    expect(own.statusCode, own.body).toBe(201);
    expect(await resolveOrchestratorBranding(t.db, platform.orchestratorId)).toEqual({
      id: own.json().id,
      orchestratorId: platform.orchestratorId,
      ...DEFAULT_COLORS,
      primaryActionColor: '#ff6600',
      termsPath: '/branding/terms.html',
      displayRequestBranding: false,
    });
  });
});
