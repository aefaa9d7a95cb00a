import { eq } from 'drizzle-orm';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, SHOP_ORIGIN, type Tenant } from '../../test/fixtures.ts';
import { clientIds, payments } from '../db/schema.ts';
import { searchColumnsOf } from '../payments/records.ts';
import { insertRequests, type RequestRow } from '../requests/requests.ts';

/**
 * `GET /v2/transaction-history` on the real app: a wallet's payments among those of the
 * requests made with the caller's client ID, written as the indexer records them (base units),
 * as 0.31.0's items in a JSON array, newest first.
 */

const WALLET = getAddress(`0x${'a1'.repeat(20)}`);
const SHOP_PAYEE = getAddress(`0x${'b2'.repeat(20)}`);
const STRANGER = getAddress(`0x${'c3'.repeat(20)}`);
const FEE_ADDRESS = getAddress(`0x${'e5'.repeat(20)}`);
const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const at = (day: number, minute = 0) => new Date(Date.UTC(2026, 0, day, 0, minute));

let t: TestApp;
let shop: Tenant;
let rival: Tenant;
/** The shop's browser client ID's row id. */
let browserRowId: string;
/** Requests: the shop's paid to its payee and to WALLET (browser client ID), by API key, the rival's. */
let toShop: RequestRow;
let toWallet: RequestRow;
let byApiKey: RequestRow;
let rivals: RequestRow;

const browser = (tenant: Tenant) => ({
  'x-client-id': tenant.browserClientId,
  origin: SHOP_ORIGIN,
});

function history(query: string, headers: Record<string, string> = browser(shop)) {
  return t.app.inject({ method: 'GET', url: `/v2/transaction-history?${query}`, headers });
}

function request(accountId: string, clientIdId: string | null, payee: string) {
  const network = t.chains.network('base');
  const usdc = t.chains.currency('USDC-base');
  if (!network || !usdc) throw new Error('no USDC on base');
  return {
    accountId,
    clientIdId,
    network,
    invoiceCurrency: usdc,
    paymentCurrency: usdc,
    expectedAmount: 1_000_000_000n,
    payee,
  };
}

async function rowIdOf(clientId: string): Promise<string> {
  const [row] = await t.db
    .select({ id: clientIds.id })
    .from(clientIds)
    .where(eq(clientIds.clientId, clientId));
  if (!row) throw new Error('missing client ID');
  return row.id;
}

async function pay(
  request: RequestRow,
  fields: {
    txNumber: number;
    payer: string;
    payee: string;
    amount: bigint;
    fee?: bigint;
    when: Date;
  },
): Promise<void> {
  await t.db.insert(payments).values({
    network: 'base',
    blockHash: `0x${'00'.repeat(32)}`,
    tokenAddress: t.chains.currency('USDC-base')?.address ?? null,
    accountId: request.accountId,
    requestRowId: request.id,
    ...searchColumnsOf(request),
    txHash: tx(fields.txNumber),
    logIndex: 0,
    blockNumber: BigInt(fields.txNumber),
    amount: fields.amount,
    feeAmount: fields.fee ?? 0n,
    feeAddress: fields.fee === undefined ? null : FEE_ADDRESS,
    payee: fields.payee,
    payerAddress: fields.payer,
    paymentReference: request.paymentReference,
    timestamp: fields.when,
  });
}

beforeAll(async () => {
  t = await createTestApp();
  shop = await createTenant(t.db, 'Shop');
  rival = await createTenant(t.db, 'Rival');
  browserRowId = await rowIdOf(shop.browserClientId);
  [toShop, toWallet, byApiKey] = (await insertRequests(t.db, [
    request(shop.accountId, browserRowId, SHOP_PAYEE),
    request(shop.accountId, browserRowId, WALLET),
    request(shop.accountId, null, SHOP_PAYEE),
  ])) as [RequestRow, RequestRow, RequestRow];
  [rivals] = (await insertRequests(t.db, [
    request(rival.accountId, await rowIdOf(rival.browserClientId), SHOP_PAYEE),
  ])) as [RequestRow];

  // WALLET pays the shop (fee beside), is paid by a stranger, pays the shop by API key's
  // request, and pays the rival: only the first two are the browser client ID's.
  await pay(toShop, {
    txNumber: 1,
    payer: WALLET,
    payee: SHOP_PAYEE,
    amount: 10_500_000n,
    fee: 250_000n,
    when: at(10),
  });
  await pay(toWallet, { txNumber: 2, payer: STRANGER, payee: WALLET, amount: 1n, when: at(12) });
  await pay(byApiKey, {
    txNumber: 3,
    payer: WALLET,
    payee: SHOP_PAYEE,
    amount: 7_000_000n,
    when: at(13),
  });
  await pay(rivals, {
    txNumber: 4,
    payer: WALLET,
    payee: SHOP_PAYEE,
    amount: 9_000_000n,
    when: at(14),
  });
});
afterAll(() => t.close());

describe('GET /v2/transaction-history', () => {
  it('lists the wallet’s incoming and outgoing payments of the client ID’s requests, newest first, as 0.31.0’s items', async () => {
    const res = await history(`address=${WALLET}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([
      {
        type: 'incoming',
        timestamp: '2026-01-12T00:00:00.000Z',
        from: STRANGER,
        to: WALLET,
        amountReceived: '0.000001',
        amountPaid: '0.000001',
        paymentCurrency: 'USDC-base',
        receivingCurrency: 'USDC-base',
        paymentChain: 'base',
        receivingChain: 'base',
        sourceTxHash: tx(2),
        destinationTxHash: tx(2),
      },
      {
        type: 'outgoing',
        timestamp: '2026-01-10T00:00:00.000Z',
        from: WALLET,
        to: SHOP_PAYEE,
        amountReceived: '10.5',
        amountPaid: '10.75',
        paymentCurrency: 'USDC-base',
        receivingCurrency: 'USDC-base',
        paymentChain: 'base',
        receivingChain: 'base',
        sourceTxHash: tx(1),
        destinationTxHash: tx(1),
      },
    ]);
  });

  it('finds the wallet in any case, and from the payee’s side as incoming', async () => {
    const lower = await history(`address=${WALLET.toLowerCase()}`);
    expect(lower.json()).toHaveLength(2);
    const payee = await history(`address=${SHOP_PAYEE}`);
    expect(payee.json()).toMatchObject([{ type: 'incoming', from: WALLET, sourceTxHash: tx(1) }]);
  });

  it('never shows another account’s payments, nor those of the account’s other credentials', async () => {
    const rivalView = await history(`address=${WALLET}`, browser(rival));
    expect(rivalView.statusCode).toBe(200);
    expect(rivalView.json()).toMatchObject([{ type: 'outgoing', sourceTxHash: tx(4) }]);
    expect(rivalView.json()).toHaveLength(1);
    // The shop's backend client ID made none of these requests.
    const backend = await history(`address=${WALLET}`, { 'x-client-id': shop.backendClientId });
    expect(backend.json()).toEqual([]);
  });

  it('pages with limit and offset, newest first, and answers [] past the end', async () => {
    const many = await insertRequests(t.db, [request(shop.accountId, browserRowId, SHOP_PAYEE)]);
    const paged = many[0] as RequestRow;
    const PAGED = getAddress(`0x${'f6'.repeat(20)}`);
    for (let i = 0; i < 25; i++) {
      await pay(paged, {
        txNumber: 100 + i,
        payer: PAGED,
        payee: SHOP_PAYEE,
        amount: BigInt(i + 1),
        when: at(20, i),
      });
    }
    const seen: string[] = [];
    for (let offset = 0; offset < 25; offset += 10) {
      const res = await history(`address=${PAGED}&limit=10&offset=${offset}`);
      expect(res.statusCode, res.body).toBe(200);
      seen.push(...res.json().map((item: { sourceTxHash: string }) => item.sourceTxHash));
    }
    expect(seen).toEqual([...Array(25).keys()].map((i) => tx(124 - i)));
    expect((await history(`address=${PAGED}`)).json()).toHaveLength(20);
    expect((await history(`address=${PAGED}&offset=25`)).json()).toEqual([]);
  });

  it.each([
    ['no address', '', 'address'],
    ['a malformed address', 'address=0x123', 'address'],
    ['a limit of 0', `address=${WALLET}&limit=0`, 'limit'],
    ['a limit of 101', `address=${WALLET}&limit=101`, 'limit'],
    ['a limit that is not a number', `address=${WALLET}&limit=ten`, 'limit'],
    ['a negative offset', `address=${WALLET}&offset=-1`, 'offset'],
    ['an offset past 10,000', `address=${WALLET}&offset=10001`, 'offset'],
  ])('answers 400 for %s, naming the field', async (_name, query, field) => {
    const res = await history(query);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().code).toBe('validation_failed');
    expect(JSON.stringify(res.json().errors)).toContain(field);
  });

  it('takes a client ID only, from its allowed origin', async () => {
    expect((await history(`address=${WALLET}`, { 'x-api-key': shop.apiKey })).statusCode).toBe(403);
    expect(
      (await history(`address=${WALLET}`, { 'x-client-id': shop.browserClientId })).statusCode,
    ).toBeGreaterThanOrEqual(401);
    expect((await history(`address=${WALLET}`, {})).statusCode).toBe(401);
  });
});
