import { eq } from 'drizzle-orm';
import { type Address, createWalletClient, custom, getAddress, type Hex } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { prepareTransactionRequest } from 'viem/actions';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { ChainClients } from '../src/chains/clients.ts';
import { createChainTime } from '../src/commerce/chain-time.ts';
import type { CommerceDeps } from '../src/commerce/deps.ts';
import { createSendQueue } from '../src/commerce/send-queue.ts';
import { clientIds, commercePayments } from '../src/db/schema.ts';
import type { LocalChain } from '../src/sandbox/chain.ts';
import { createRealClock, createTestApp, createTestClock, type TestApp } from './app.ts';
import { accountOf, type StandIn, sendAll, standIn, usdcBalance } from './chain.ts';
import { createTenant, type Tenant } from './fixtures.ts';

/**
 * Commerce payment test helpers: the real app on a local EVM standing in for Base, with the
 * server's commerce operator key (`COMMERCE_OPERATOR_KEY`, wallet 5), two tenants, and a
 * snapshot around every test. Live bindings, assigned by `setupCommerceApp()`.
 */

export let local: StandIn;
export let t: TestApp;
export let tenantA: Tenant;
export let tenantB: Tenant;
let snapshot: Hex;

export const OPERATOR_WALLET = 5;
export const BUYER_WALLET = 2;
export const MERCHANT_WALLET = 3;

/**
 * Where the test clock starts: ahead of the local chain's time (the machine's), so the time the
 * commerce checks judge by (the later of the server's and the chain's, chain-time.ts) is the
 * test clock's, and moves only when a test moves it.
 */
export const COMMERCE_TEST_START = new Date('2030-01-01T12:00:00Z');

/** A JSON-RPC provider as viem's `custom` transport calls it. */
export interface RpcProvider {
  request(args: { readonly method: string; readonly params?: unknown }): Promise<unknown>;
}

/**
 * `realClock`: the chain's time is the machine's, so on-chain expiries need the app's to be too.
 * `provider`: what the app's client of the chain calls instead of it (a fault injected).
 */
export function setupCommerceApp(
  options: { realClock?: boolean; provider?: (chain: LocalChain) => RpcProvider } = {},
): void {
  beforeAll(async () => {
    local = await standIn('base', { walletCount: 8 });
    const key = local.chain.wallets[OPERATOR_WALLET]?.privateKey ?? '';
    t = await createTestApp({
      env: { ...local.env, COMMERCE_OPERATOR_KEY: key },
      transports: options.provider
        ? { base: custom(options.provider(local.chain), { retryCount: 0 }) }
        : local.transports,
      clock: options.realClock ? createRealClock() : createTestClock(COMMERCE_TEST_START),
    });
    tenantA = await createTenant(t.db, 'Shop A');
    tenantB = await createTenant(t.db, 'Shop B');
  });
  afterAll(async () => {
    await t.close();
    await local.chain.close();
  });
  beforeEach(async () => {
    snapshot = await local.chain.snapshot();
  });
  afterEach(async () => {
    await local.chain.revert(snapshot);
  });
}

/**
 * What `executeAction` runs on, outside the app: the server's own operator (wallet 5), not a
 * shared key, so it approves the wrapper before a refund; `clients` and `sends` as given (a
 * fault injected), else the app's clients and a send queue of its own.
 */
export function commerceDeps(
  options: { readonly clients?: ChainClients; readonly sends?: CommerceDeps['sends'] } = {},
): CommerceDeps {
  const clients = options.clients ?? t.clients;
  return {
    db: t.db,
    clock: t.clock,
    chains: t.chains,
    clients,
    chainTime: createChainTime({ clients, clock: t.clock }),
    operator: () => wallet(OPERATOR_WALLET),
    sharedOperatorKey: false,
    sends: options.sends ?? createSendQueue(t.database),
    payUrl: 'http://pay.test',
    receiptTimeoutMs: 30_000,
  };
}

export function wallet(index: number): PrivateKeyAccount {
  const found = local.chain.wallets[index];
  if (!found) throw new Error(`no wallet ${index}`);
  return privateKeyToAccount(found.privateKey);
}

export type Headers = Record<string, string>;
export const apiKey = (tenant: Tenant): Headers => ({ 'x-api-key': tenant.apiKey });
export const backendClient = (tenant: Tenant): Headers => ({
  'x-client-id': tenant.backendClientId,
});

export function post(url: string, payload: object, headers: Headers = apiKey(tenantA)) {
  return t.app.inject({ method: 'POST', url, headers, payload });
}

export function status(requestId: string, headers: Headers = apiKey(tenantA)) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/commerce-payments/${requestId}/status`,
    headers,
  });
}

export function authorizeBody(extra: Record<string, unknown> = {}) {
  return {
    merchantId: 'shop-1',
    merchantAddress: wallet(MERCHANT_WALLET).address,
    buyerAddress: wallet(BUYER_WALLET).address,
    amount: '50',
    paymentCurrency: 'USDC-base',
    ...extra,
  };
}

/** Creates a commerce payment and returns the 201 answer. */
export async function createdPayment(
  extra: Record<string, unknown> = {},
  headers: Headers = apiKey(tenantA),
) {
  const res = await post('/v2/commerce-payments/authorize/calldata', authorizeBody(extra), headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** Sets a client ID's commerce settings, as PUT /v2/client-ids/{id} would. */
export async function setClientIdCommerce(
  clientId: string,
  values: {
    operatorWalletAddress?: string | null;
    defaultPreApprovalExpiry?: number | null;
    defaultAuthorizationExpiry?: number | null;
  },
): Promise<void> {
  await t.db.update(clientIds).set(values).where(eq(clientIds.clientId, clientId));
}

/** The operator's nonce: what a refusal must leave unchanged (nothing was sent). */
export function operatorNonce(): Promise<number> {
  return local.chain.client.getTransactionCount({ address: wallet(OPERATOR_WALLET).address });
}

/** A commerce payment's row, by its request id. */
export async function commerceRowOf(requestId: string) {
  const [row] = await t.db
    .select()
    .from(commercePayments)
    .where(eq(commercePayments.requestId, requestId));
  if (!row) throw new Error(`no commerce payment ${requestId}`);
  return row;
}

/** `GET /v2/commerce-payments/token/<path>`: the buyer's routes by pay token. */
export function byPayToken(path: string, headers: Headers = apiKey(tenantA)) {
  return t.app.inject({ method: 'GET', url: `/v2/commerce-payments/token/${path}`, headers });
}

/** A wallet call as the buyer's routes answer it. */
export interface BuyerCall {
  readonly to: `0x${string}`;
  readonly data: `0x${string}`;
  readonly value: { readonly hex: `0x${string}` };
}

/** Sends `calls` from the local chain's wallet `index`, as the pay page's wallet does. */
export function sendBuyerCalls(index: number, calls: readonly BuyerCall[]) {
  return sendAll(
    local.chain,
    wallet(index),
    calls.map((c) => ({
      to: c.to,
      data: c.data,
      value: c.value.hex,
      chainId: local.chain.chainId,
    })),
  );
}

export type AnsweredTransaction = { to: Address; data: Hex; value: { hex: Hex } };

/**
 * A payment of 50 the buyer approved and pre-approved (the transactions of /authorize/calldata)
 * and the server's operator authorized: its requestId.
 */
export async function authorizedPayment(): Promise<string> {
  const { requestId, transactions } = await createdPayment();
  await sendBuyerCalls(BUYER_WALLET, transactions);
  const res = await post(`/v2/commerce-payments/${requestId}/authorize`, {});
  expect(res.statusCode, res.body).toBe(200);
  return requestId;
}

type Answer = Awaited<ReturnType<TestApp['app']['inject']>>;

/**
 * A refund as its operator sends it with its own key: `/refund/calldata`, its approval of the
 * wrapper sent, then `refundPayment` signed and handed to `/refund` as `signedTransaction`.
 * `send` posts as the test's caller; the answer is `/refund`'s.
 */
export async function signedRefund(
  send: (url: string, payload: object) => Promise<Answer>,
  chain: LocalChain,
  operatorIndex: number,
  requestId: string,
  refundAmount: string,
): Promise<Answer> {
  const url = `/v2/commerce-payments/${requestId}/refund`;
  const call = await send(`${url}/calldata`, { refundAmount });
  expect(call.statusCode, call.body).toBe(200);
  const [approval, refund] = call.json().transactions as AnsweredTransaction[];
  if (!approval || !refund) throw new Error('no refund transactions');
  const operator = accountOf(chain, operatorIndex);
  await sendAll(chain, operator, [
    { to: approval.to, data: approval.data, value: approval.value.hex, chainId: chain.chainId },
  ]);
  const signedTransaction = await signedBy(chain, operatorIndex, refund.to, refund.data);
  return send(url, { refundAmount, signedTransaction });
}

/** The call `to`/`data` signed by the local chain's wallet `index`, as an operator off the server signs it. */
export async function signedBy(chain: LocalChain, index: number, to: Hex, data: Hex): Promise<Hex> {
  const client = createWalletClient({
    account: accountOf(chain, index),
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
  return client.signTransaction(await prepareTransactionRequest(client, { to, data }));
}

/** The USDC the commerce escrow holds (every authorized payment's unreleased funds). */
export function escrowBalance(): Promise<bigint> {
  return usdcBalance(local.chain, getAddress(t.chains.contracts('base').authCaptureEscrow ?? ''));
}
