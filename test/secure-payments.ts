import { count, eq, inArray } from 'drizzle-orm';
import { custom, getAddress } from 'viem';
import { afterAll, beforeAll, expect } from 'vitest';
import { ulid } from '../src/base/ulid.ts';
import type { NetworkId } from '../src/chains/networks.ts';
import { requests, securePayments } from '../src/db/schema.ts';
import { activateDestination, type DestinationRow } from '../src/destinations/destinations.ts';
import { resolveTarget } from '../src/destinations/target.ts';
import type { LinkItem, NewLink } from '../src/secure-payments/insert-link.ts';
import { createTestApp, type TestApp } from './app.ts';
import { createTenant, SHOP_ORIGIN, type Tenant } from './fixtures.ts';

/**
 * Secure-payment route test helpers: the real app with two tenants, and the calls and checks
 * the `src/secure-payments/*.test.ts` files share. Base is served by a transport that records
 * and fails every RPC call, so a test can prove a path never touches the chain (and nothing
 * here can reach a real network).
 *
 * `t`, `shop` and `rival` are live bindings: `setupSecurePaymentsApp()` assigns them in the
 * importing file's `beforeAll`, and every test file gets its own copy of this module.
 */

export const PAY_URL = 'https://pay.payreq.test';
export const BASE_CHAIN_ID = 8453;
export const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const BASE_DAI = '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb';
export const TRON_WALLET = 'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF';
export const TRON_USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
export const DAY_MS = 24 * 60 * 60 * 1000;
/** Well-formed, never issued. */
export const UNKNOWN_TOKEN = '01KAAAAAAAAAAAAAAAAAAAAAAA';

export let t: TestApp;
export let shop: Tenant;
export let rival: Tenant;
/** Every JSON-RPC method the app sent to base. */
export const rpcCalls: string[] = [];

/** A transport that fails every call: the network is configured, and never answers. */
const unreachable = (network: string) =>
  custom(
    {
      request: async () => {
        throw new Error(`${network} is not reachable in these tests`);
      },
    },
    { retryCount: 0 },
  );

/**
 * Registers the file's app (with PAY_URL and the failing base transport), shop and rival;
 * `networks` are configured too, with transports that fail every call (sources `/pay` and a
 * transfer's intent may name).
 */
export function setupSecurePaymentsApp(networks: readonly NetworkId[] = []): void {
  beforeAll(async () => {
    t = await createTestApp({
      env: { PAY_URL },
      transports: {
        ...Object.fromEntries(networks.map((network) => [network, unreachable(network)])),
        base: custom(
          {
            request: async ({ method }: { method: string }) => {
              rpcCalls.push(method);
              throw new Error('base is not reachable in these tests');
            },
          },
          { retryCount: 0 },
        ),
      },
    });
    shop = await createTenant(t.db, 'Shop');
    rival = await createTenant(t.db, 'Rival');
  });
  afterAll(() => t.close());
}

export type Headers = Record<string, string>;
export type Item = { destinationId?: string; amount: string; invoiceCurrency?: string };
export type Body = Record<string, unknown>;

export const apiKey = (tenant: Tenant): Headers => ({ 'x-api-key': tenant.apiKey });
export const backend = (tenant: Tenant): Headers => ({ 'x-client-id': tenant.backendClientId });
export const browser = (tenant: Tenant): Headers => ({
  'x-client-id': tenant.browserClientId,
  origin: SHOP_ORIGIN,
});

/** A distinct EVM wallet per n (a wallet has one active destination per account). */
export function wallet(n: number): string {
  return getAddress(`0x${(0xa11ce000 + n).toString(16).padStart(40, '0')}`);
}

let nextWallet = 1;
/** A fresh active destination of the tenant, registered the way the signed flow ends. */
export async function destination(
  tenant: Tenant,
  target: { walletAddress?: string; chainId?: number; tokenAddress?: string } = {},
): Promise<DestinationRow> {
  return activateDestination(
    t.db,
    t.clock,
    tenant.accountId,
    resolveTarget(t.chains, {
      walletAddress: target.walletAddress ?? wallet(nextWallet++),
      chainId: target.chainId ?? BASE_CHAIN_ID,
      tokenAddress: target.tokenAddress ?? BASE_USDC,
    }),
  );
}

export function create(headers: Headers, payload: Body) {
  return t.app.inject({ method: 'POST', url: '/v2/secure-payments', headers, payload });
}

export async function createLink(
  tenant: Tenant,
  items: Item[],
  extra: Body = {},
): Promise<{ token: string; requestIds: string[]; securePaymentUrl: string }> {
  const res = await create(apiKey(tenant), { requests: items, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export async function rowCounts(): Promise<{ links: number; requests: number }> {
  const [links] = await t.db.select({ n: count() }).from(securePayments);
  const [rows] = await t.db.select({ n: count() }).from(requests);
  return { links: links?.n ?? -1, requests: rows?.n ?? -1 };
}

/** Sends the create call, checks status and body, and that nothing reached the database. */
export async function expectRefused(
  headers: Headers,
  payload: Body,
  status: number,
  body: Body,
): Promise<Body> {
  const before = await rowCounts();
  const res = await create(headers, payload);
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toMatchObject(body);
  expect(await rowCounts()).toEqual(before);
  return res.json();
}

export function badRequest(message: string, code: string): Body {
  return { statusCode: 400, error: 'Bad Request', message, code };
}

export function validationFailed(errors: { field: string; message?: unknown }[]): Body {
  return { statusCode: 400, error: 'Bad Request', message: 'Validation failed', errors };
}

export function get(url: string, headers: Headers) {
  return t.app.inject({ method: 'GET', url, headers });
}

export function pay(token: string, query: Record<string, string>, headers: Headers = apiKey(shop)) {
  const search = new URLSearchParams(query).toString();
  return get(`/v2/secure-payments/${token}/pay${search ? `?${search}` : ''}`, headers);
}

export function calldata(token: string, body: Body | undefined, headers: Headers = apiKey(shop)) {
  return t.app.inject({
    method: 'POST',
    url: `/v2/secure-payments/${token}/calldata`,
    headers,
    ...(body !== undefined && { payload: body }),
  });
}

export async function requestRows(requestIds: string[]) {
  return t.db
    .select()
    .from(requests)
    .where(inArray(requests.requestId, requestIds))
    .orderBy(requests.position);
}

export async function setLinkStatus(
  token: string,
  values: Partial<typeof securePayments.$inferInsert>,
): Promise<void> {
  await t.db.update(securePayments).set(values).where(eq(securePayments.token, token));
}

/**
 * A link of one request of `amount` base units to `destinationId` of the shop, as the creation
 * route drafts it: what `writeLink` takes.
 */
export function linkDraft(
  destinationId: string,
  token = ulid(t.clock.now().getTime()),
  amount = 12_500_000n,
): { link: NewLink; items: LinkItem[] } {
  const target = resolveTarget(t.chains, {
    walletAddress: wallet(1),
    chainId: BASE_CHAIN_ID,
    tokenAddress: BASE_USDC,
  });
  const caller = {
    accountId: shop.accountId,
    clientId: null,
    orchestrated: false,
    orchestratorId: null,
    origin: null,
  };
  const link: NewLink = { token, caller, network: 'base', now: t.clock.now() };
  const items: LinkItem[] = [
    {
      accountId: shop.accountId,
      clientIdId: null,
      origin: null,
      position: 0,
      network: target.network,
      invoiceCurrency: target.currency,
      paymentCurrency: target.currency,
      expectedAmount: amount,
      payee: target.id.walletAddress,
      destinationId,
      reference: null,
    },
  ];
  return { link, items };
}
