import { count, eq } from 'drizzle-orm';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { createClientId } from '../auth/client-ids.ts';
import { securePayments, webhookDeliveries } from '../db/schema.ts';
import { activateDestination } from '../destinations/destinations.ts';
import { resolveTarget } from '../destinations/target.ts';
import { createRateLimiter } from '../http/rate-limit.ts';
import { linkClientId } from '../orchestrators/links.ts';
import { createOrchestrator } from '../orchestrators/orchestrators.ts';
import { ensurePayPageClientId } from '../pay-page/client-id.ts';
import { CLEAR_ADDRESS_MESSAGE } from './user-events.ts';

/**
 * `POST /v2/secure-payments/{token}/user-events` on the real app with a memory rate limiter:
 * each report becomes one `secure_payment.user_event` delivery to the webhooks that hear of
 * the link's payments, and to no one else.
 */

type Headers = Record<string, string>;

const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const HASHED = 'ab'.repeat(32);
const TX_HASH = `0x${'cd'.repeat(32)}`;
const UNKNOWN_TOKEN = '01KAAAAAAAAAAAAAAAAAAAAAAA';

let t: TestApp;
let shop: Tenant;
let rival: Tenant;
/** The pay page's own client ID, from its origin. */
let page: Headers;
/** Webhooks: the shop's platform-wide one, one of a shop client ID, and the rival's. */
let hooks: { shop: string; shopClientId: string; rival: string };
let wallets = 0;

beforeAll(async () => {
  t = await createTestApp({
    rateLimiter: ({ clock, logger }) => createRateLimiter({ redisUrl: null, clock, logger }),
  });
  shop = await createTenant(t.db, 'Shop');
  rival = await createTenant(t.db, 'Rival');
  page = {
    'x-client-id': await ensurePayPageClientId(t.db, t.config.payUrl),
    origin: new URL(t.config.payUrl).origin,
  };
  hooks = {
    shop: await webhook({ 'x-api-key': shop.apiKey }),
    shopClientId: await webhook({ 'x-client-id': shop.backendClientId }),
    rival: await webhook({ 'x-api-key': rival.apiKey }),
  };
});
afterAll(() => t.close());

async function webhook(headers: Headers): Promise<string> {
  const url = `https://hooks.example/payreq/${Math.random().toString(36).slice(2)}`;
  const res = await t.app.inject({ method: 'POST', url: '/v1/webhook', headers, payload: { url } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

async function destinationOf(tenant: Tenant): Promise<string> {
  wallets += 1;
  const walletAddress = getAddress(`0x${(0xbeef0000 + wallets).toString(16).padStart(40, '0')}`);
  const target = resolveTarget(t.chains, { walletAddress, chainId: 8453, tokenAddress: USDC_BASE });
  return (await activateDestination(t.db, t.clock, tenant.accountId, target)).destinationId;
}

async function createLink(
  tenant: Tenant,
  amounts: string[] = ['5'],
  headers: Headers = { 'x-api-key': tenant.apiKey },
): Promise<{ token: string; requestIds: string[] }> {
  const destinationId = await destinationOf(tenant);
  const requests = amounts.map((amount) => ({ destinationId, amount }));
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers,
    payload: { requests },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

function report(token: string, payload: unknown, headers: Headers = page) {
  return t.app.inject({
    method: 'POST',
    url: `/v2/secure-payments/${token}/user-events`,
    headers,
    payload: payload as object,
  });
}

/** The bodies delivered to a webhook, those about one link only when a token is given. */
async function bodiesTo(webhookId: string, token?: string): Promise<Record<string, unknown>[]> {
  const rows = await t.db
    .select({ body: webhookDeliveries.body })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId));
  const bodies = rows.map((row) => JSON.parse(row.body) as Record<string, unknown>);
  return token === undefined ? bodies : bodies.filter((b) => b.securePaymentToken === token);
}

async function deliveryCount(): Promise<number> {
  const [row] = await t.db.select({ n: count() }).from(webhookDeliveries);
  return row?.n ?? -1;
}

describe('POST /v2/secure-payments/{token}/user-events', () => {
  it.each(['wallet_connected', 'payment_sent_to_wallet', 'payment_approved_in_wallet'])(
    'turns %s into one secure_payment.user_event for the link’s account',
    async (userEvent) => {
      const link = await createLink(shop);
      const rivalHeard = await bodiesTo(hooks.rival);
      const clientScoped = await bodiesTo(hooks.shopClientId);
      const properties = { wallet_provider: 'MetaMask', wallet_address_hashed: HASHED };
      const res = await report(link.token, {
        userEvent,
        occurredAt: '2026-11-22T12:59:58+01:00',
        properties,
      });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json()).toEqual({ accepted: true });

      const added = await bodiesTo(hooks.shop, link.token);
      expect(added).toEqual([
        {
          event: 'secure_payment.user_event',
          userEvent,
          securePaymentToken: link.token,
          requestId: link.requestIds[0],
          requestIds: link.requestIds,
          orchestratorId: null,
          occurredAt: '2026-11-22T11:59:58.000Z',
          timestamp: t.clock.now().toISOString(),
          properties,
        },
      ]);
      expect(Object.keys(added[0] ?? {})[0]).toBe('event');
      // Another account's endpoint hears nothing, nor one registered with a client ID the link
      // was not made with.
      expect(await bodiesTo(hooks.rival)).toEqual(rivalHeard);
      expect(await bodiesTo(hooks.shopClientId)).toEqual(clientScoped);
    },
  );

  it('gives a batch link’s request ids, with no requestId, and an empty properties object', async () => {
    const link = await createLink(shop, ['1', '2', '3']);
    const res = await report(link.token, {
      userEvent: 'wallet_connected',
      occurredAt: '2026-11-22T12:00:00Z',
    });
    expect(res.statusCode, res.body).toBe(202);
    const [body] = await bodiesTo(hooks.shop, link.token);
    expect(body).not.toHaveProperty('requestId');
    expect(body).toMatchObject({ requestIds: link.requestIds, properties: {} });
    expect(link.requestIds).toHaveLength(3);
  });

  it('names the orchestrator linked to the client ID the link was made with', async () => {
    const destinationId = await destinationOf(shop);
    const bound = await createClientId(t.db, {
      accountId: shop.accountId,
      label: 'Platform-bound',
      allowedDomains: [],
      payeeDestinationId: destinationId,
    });
    const platform = await createOrchestrator(t.db, 'Platform');
    await linkClientId(t.db, platform.orchestratorId, bound.clientId);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: { 'x-orchestrator-key': platform.orchestratorKey, 'x-client-id': bound.clientId },
      payload: { requests: [{ amount: '4' }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const sent = await report(res.json().token, {
      userEvent: 'payment_sent_to_wallet',
      occurredAt: '2026-11-22T12:00:00Z',
    });
    expect(sent.statusCode, sent.body).toBe(202);
    const [body] = await bodiesTo(hooks.shop, res.json().token);
    expect(body).toMatchObject({ orchestratorId: platform.orchestratorId });
  });

  it('takes reports for any account’s link from the pay page, and for the account’s own from its credentials', async () => {
    const rivals = await createLink(rival);
    const event = { userEvent: 'wallet_connected', occurredAt: '2026-11-22T12:00:00Z' };
    expect((await report(rivals.token, event)).statusCode).toBe(202);
    expect((await report(rivals.token, event, { 'x-api-key': rival.apiKey })).statusCode).toBe(202);
    expect(await bodiesTo(hooks.rival, rivals.token)).toHaveLength(2);
  });

  it('answers 404 for an unknown token, and for another account’s link to an ordinary caller', async () => {
    const event = { userEvent: 'wallet_connected', occurredAt: '2026-11-22T12:00:00Z' };
    const before = await deliveryCount();
    const unknown = await report(UNKNOWN_TOKEN, event);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('secure_payment_not_found');
    const shops = await createLink(shop);
    for (const headers of [
      { 'x-api-key': rival.apiKey },
      { 'x-client-id': rival.backendClientId },
    ]) {
      expect((await report(shops.token, event, headers)).statusCode).toBe(404);
    }
    expect(await deliveryCount()).toBe(before);
  });

  it('accepts a report whatever the link’s status: telemetry is not a settlement signal', async () => {
    const link = await createLink(shop);
    await t.db
      .update(securePayments)
      .set({ status: 'completed' })
      .where(eq(securePayments.token, link.token));
    const res = await report(link.token, {
      userEvent: 'payment_approved_in_wallet',
      occurredAt: '2026-11-22T12:00:00Z',
    });
    expect(res.statusCode, res.body).toBe(202);
  });

  it.each([
    ['an unknown event', { userEvent: 'payment_confirmed', occurredAt: '2026-11-22T12:00:00Z' }],
    ['no occurredAt', { userEvent: 'wallet_connected' }],
    ['a date without a zone', { userEvent: 'wallet_connected', occurredAt: '2026-11-22T12:00:00' }],
    [
      'a date that does not exist',
      { userEvent: 'wallet_connected', occurredAt: '2026-02-30T12:00:00Z' },
    ],
    ['a number among the properties', { properties: { wallet_provider: 5 } }],
    ['a property name in capitals', { properties: { Wallet: 'x' } }],
    ['a property of 257 characters', { properties: { wallet_provider: 'x'.repeat(257) } }],
    [
      '17 properties',
      { properties: Object.fromEntries([...Array(17).keys()].map((i) => [`p${i}`, 'x'])) },
    ],
    ['properties as a list', { properties: ['wallet_connected'] }],
  ])('answers 400 for %s, and sends nothing', async (_name, body) => {
    const link = await createLink(shop);
    const before = await deliveryCount();
    const payload =
      'properties' in body && !('userEvent' in body)
        ? { userEvent: 'wallet_connected', occurredAt: '2026-11-22T12:00:00Z', ...body }
        : body;
    const res = await report(link.token, payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed', message: 'Validation failed' });
    expect(await deliveryCount()).toBe(before);
  });

  it.each([
    ['an EVM address', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'],
    ['an EVM address in a sentence', 'paid from 0x70997970c51812dc3a010c7d01b50e0d17dc79c8 today'],
    ['a Tron address', 'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF'],
    ['an EVM address with an upper-case 0X', '0X70997970C51812dc3A010C7d01b50e0d17dc79C8'],
    ['an EVM address without its 0x', '70997970c51812dc3a010c7d01b50e0d17dc79c8'],
  ])('refuses %s in clear, asking for its hash', async (_name, value) => {
    const link = await createLink(shop);
    const before = await deliveryCount();
    const res = await report(link.token, {
      userEvent: 'wallet_connected',
      occurredAt: '2026-11-22T12:00:00Z',
      properties: { wallet_provider: 'TronLink', payer: value },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'properties.payer', message: CLEAR_ADDRESS_MESSAGE },
    ]);
    expect(await deliveryCount()).toBe(before);
  });

  it('refuses a wallet address in clear in a property’s name', async () => {
    const link = await createLink(shop);
    const before = await deliveryCount();
    const name = 'paid_by_0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
    const res = await report(link.token, {
      userEvent: 'wallet_connected',
      occurredAt: '2026-11-22T12:00:00Z',
      properties: { [name]: 'yes' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: `properties.${name}`, message: CLEAR_ADDRESS_MESSAGE },
    ]);
    expect(await deliveryCount()).toBe(before);
  });

  it('lets a transaction hash and a hashed address through', async () => {
    const link = await createLink(shop);
    const res = await report(link.token, {
      userEvent: 'payment_approved_in_wallet',
      occurredAt: '2026-11-22T12:00:00Z',
      properties: {
        payment_submission_id: TX_HASH,
        payment_submission_id_type: 'tx_hash',
        wallet_address_hashed: HASHED,
      },
    });
    expect(res.statusCode, res.body).toBe(202);
  });

  it('refuses the 31st report for one link in a minute with 429, and takes reports again after', async () => {
    const link = await createLink(shop);
    const other = await createLink(shop);
    const event = { userEvent: 'wallet_connected', occurredAt: '2026-11-22T12:00:00Z' };
    for (let i = 0; i < 30; i++) {
      const res = await report(link.token, event);
      expect(res.statusCode, `report ${i + 1}`).toBe(202);
    }
    const before = await deliveryCount();
    const refused = await report(link.token, event);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe('rate_limited');
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['ratelimit-limit']).toBe('30');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(await deliveryCount()).toBe(before);
    // Per link: another link's reports still go through.
    expect((await report(other.token, event)).statusCode).toBe(202);
    t.clock.advance(60_000);
    expect((await report(link.token, event)).statusCode).toBe(202);
  });
});
