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
 * `POST /v2/secure-payments/{token}/events` (and its alias `/user-events`) on the real app with
 * a memory rate limiter: each report becomes one `secure_payment.user_event` delivery to the
 * webhooks that hear of the link's payments, and to no one else, carrying only the documented
 * properties.
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

type Path = 'events' | 'user-events';

function report(token: string, payload: unknown, headers: Headers = page, path: Path = 'events') {
  return t.app.inject({
    method: 'POST',
    url: `/v2/secure-payments/${token}/${path}`,
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

describe('POST /v2/secure-payments/{token}/events', () => {
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
      expect(res.json()).toEqual({ received: true });

      const added = await bodiesTo(hooks.shop, link.token);
      expect(added).toEqual([
        {
          event: 'secure_payment.user_event',
          userEvent,
          securePaymentToken: link.token,
          requestId: link.requestIds[0],
          requestIds: link.requestIds,
          // Made with an API key: the client ID the report came with (the page's).
          clientId: page['x-client-id'],
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
    expect(body).toMatchObject({
      clientId: bound.clientId,
      orchestratorId: platform.orchestratorId,
    });
  });

  it('takes reports for any account’s link from the pay page, and for the account’s own from its credentials', async () => {
    const rivals = await createLink(rival);
    const event = { userEvent: 'wallet_connected', occurredAt: '2026-11-22T12:00:00Z' };
    expect((await report(rivals.token, event)).statusCode).toBe(202);
    expect(
      (await report(rivals.token, event, { 'x-api-key': rival.apiKey }, 'user-events')).statusCode,
    ).toBe(202);
    expect(await bodiesTo(hooks.rival, rivals.token)).toHaveLength(2);
  });

  it('answers 404 for an unknown token, and for another account’s link to an ordinary caller', async () => {
    const event = { userEvent: 'wallet_connected', occurredAt: '2026-11-22T12:00:00Z' };
    const before = await deliveryCount();
    const unknown = await report(UNKNOWN_TOKEN, event);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('secure_payment_not_found');
    const shops = await createLink(shop);
    expect(
      (await report(shops.token, event, { 'x-client-id': rival.backendClientId })).statusCode,
    ).toBe(404);
    for (const headers of [
      { 'x-api-key': rival.apiKey },
      { 'x-client-id': rival.backendClientId },
    ]) {
      expect((await report(shops.token, event, headers, 'user-events')).statusCode).toBe(404);
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
    ['a date without a zone', { userEvent: 'wallet_connected', occurredAt: '2026-11-22T12:00:00' }],
    [
      'a date that does not exist',
      { userEvent: 'wallet_connected', occurredAt: '2026-02-30T12:00:00Z' },
    ],
    ['a text of 2,049 characters', { properties: { wallet_provider: 'x'.repeat(2049) } }],
    ['a list of 1,001 texts', { properties: { payment_type: Array(1001).fill('x') } }],
    ['a number in a list', { properties: { payment_type: ['x', 5] } }],
    ['an object as a value', { properties: { wallet_provider: { name: 'x' } } }],
    // Even under a name that is dropped: the whole body is 0.31.0's schema.
    ['an object under an undocumented name', { properties: { html: { b: '<b>' } } }],
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
      properties: { payment_type: 'single', wallet_provider: value },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'properties.wallet_provider', message: CLEAR_ADDRESS_MESSAGE },
    ]);
    expect(await deliveryCount()).toBe(before);
  });

  it('refuses a wallet address in clear inside a list value', async () => {
    const link = await createLink(shop);
    const before = await deliveryCount();
    const res = await report(link.token, {
      userEvent: 'wallet_connected',
      properties: { selected_source_chain: ['base', '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'properties.selected_source_chain', message: CLEAR_ADDRESS_MESSAGE },
    ]);
    expect(await deliveryCount()).toBe(before);
  });

  it('keeps only the documented properties, of every type 0.31.0 allows, and forwards nothing else', async () => {
    const link = await createLink(shop);
    const res = await report(link.token, {
      userEvent: 'payment_sent_to_wallet',
      occurredAt: '2026-11-22T12:00:00Z',
      properties: {
        wallet_provider: 'MetaMask',
        payment_submission_id: TX_HASH,
        payment_submission_id_type: 'tx_hash',
        selected_source_chain: ['base', 'arbitrum'],
        payment_type: null,
        wallet_address_hashed: HASHED,
        email: 'victim@example.com',
        note: '<img src=x onerror=alert(1)>',
        // Dropped even when it holds an address: nothing of it is kept.
        payer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        amount: 12.5,
        retried: true,
      },
    });
    expect(res.statusCode, res.body).toBe(202);
    const [body] = await bodiesTo(hooks.shop, link.token);
    expect(body?.properties).toEqual({
      wallet_provider: 'MetaMask',
      payment_submission_id: TX_HASH,
      payment_submission_id_type: 'tx_hash',
      selected_source_chain: ['base', 'arbitrum'],
      payment_type: null,
      wallet_address_hashed: HASHED,
    });
    expect(JSON.stringify(body)).not.toMatch(/victim|onerror|70997970/i);
  });

  it('takes a number and a boolean under documented names, and a report without occurredAt (receipt time)', async () => {
    const link = await createLink(shop);
    const res = await report(link.token, {
      userEvent: 'wallet_connected',
      properties: {
        wallet_provider: 'x'.repeat(2048),
        payment_type: 3,
        selected_source_chain: false,
      },
    });
    expect(res.statusCode, res.body).toBe(202);
    const [body] = await bodiesTo(hooks.shop, link.token);
    expect(body).toMatchObject({
      occurredAt: t.clock.now().toISOString(),
      timestamp: t.clock.now().toISOString(),
      properties: {
        wallet_provider: 'x'.repeat(2048),
        payment_type: 3,
        selected_source_chain: false,
      },
    });
  });

  it('carries every field of webhooks-0.31’s SecurePaymentUserEvent, of its type', async () => {
    const link = await createLink(shop, ['1', '2']);
    expect(
      (await report(link.token, { userEvent: 'wallet_connected', properties: {} })).statusCode,
    ).toBe(202);
    const [body] = await bodiesTo(hooks.shop, link.token);
    // {event*, userEvent*, securePaymentToken*, requestId, requestIds*, clientId*, orchestratorId,
    // occurredAt*, timestamp*, properties*}: required present, none null.
    for (const field of [
      'event',
      'userEvent',
      'securePaymentToken',
      'clientId',
      'occurredAt',
      'timestamp',
    ]) {
      expect(typeof body?.[field], field).toBe('string');
    }
    expect(Array.isArray(body?.requestIds)).toBe(true);
    expect(typeof body?.properties).toBe('object');
    expect(body).not.toHaveProperty('orchestratorId');
    expect(Object.values(body ?? {})).not.toContain(null);
  });

  it('serves the /user-events alias with the same checks, answering {accepted: true}', async () => {
    const link = await createLink(shop);
    const before = await deliveryCount();
    const bad = await report(link.token, { userEvent: 'x' }, page, 'user-events');
    expect(bad.statusCode).toBe(400);
    expect(await deliveryCount()).toBe(before);
    const res = await report(
      link.token,
      { userEvent: 'wallet_connected', properties: { wallet_provider: 'Rabby', html: '<b>' } },
      page,
      'user-events',
    );
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ accepted: true });
    const [body] = await bodiesTo(hooks.shop, link.token);
    expect(body?.properties).toEqual({ wallet_provider: 'Rabby' });
  });

  it('refuses an API key on the reference path, as 0.31.0 asks for a client ID', async () => {
    const link = await createLink(shop);
    const res = await report(
      link.token,
      { userEvent: 'wallet_connected' },
      { 'x-api-key': shop.apiKey },
    );
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('credential_not_accepted');
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

  it('counts both paths in one budget: 15 + 15 pass, the 31st on either is refused', async () => {
    const link = await createLink(shop);
    const event = { userEvent: 'wallet_connected' };
    for (let i = 0; i < 30; i++) {
      const path = i % 2 === 0 ? 'events' : 'user-events';
      expect((await report(link.token, event, page, path)).statusCode, `report ${i + 1}`).toBe(202);
    }
    expect((await report(link.token, event, page, 'events')).statusCode).toBe(429);
    expect((await report(link.token, event, page, 'user-events')).statusCode).toBe(429);
    t.clock.advance(60_000);
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
    // One budget over both paths: the alias is refused as well.
    const alias = await report(link.token, event, page, 'user-events');
    expect(alias.statusCode).toBe(429);
    expect(await deliveryCount()).toBe(before);
    // Per link: another link's reports still go through.
    expect((await report(other.token, event)).statusCode).toBe(202);
    t.clock.advance(60_000);
    expect((await report(link.token, event)).statusCode).toBe(202);
  });
});
