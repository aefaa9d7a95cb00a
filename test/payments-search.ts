import { eq } from 'drizzle-orm';
import { getAddress } from 'viem';
import { afterAll, beforeAll, expect } from 'vitest';
import { evmToTron } from '../src/chains/tron-address.ts';
import { payments, requests } from '../src/db/schema.ts';
import { searchColumnsOf } from '../src/payments/records.ts';
import { insertRequests, type RequestRow } from '../src/requests/requests.ts';
import { createTestApp, type TestApp } from './app.ts';
import { createTenant, type Tenant } from './fixtures.ts';

/**
 * What the tests of GET /v2/payments share (src/payments-search/routes-*.test.ts): an app with
 * two accounts, their requests made the real way and their payments written as the indexer
 * records them (base units), so the search is proved against the stored form; and the route's
 * calls.
 */

export let t: TestApp;
export let shop: Tenant;
export let other: Tenant;

export const PAYEE = getAddress(`0x${'a1'.repeat(20)}`);
export const PAYER = getAddress(`0x${'b2'.repeat(20)}`);
export const SENDER = getAddress(`0x${'c3'.repeat(20)}`);
export const EOA = getAddress(`0x${'d4'.repeat(20)}`);
export const FEE_ADDRESS = getAddress(`0x${'e5'.repeat(20)}`);
export const TRON_PAYEE = evmToTron(`0x${'16'.repeat(20)}`);
export const TRON_PAYER = evmToTron(`0x${'27'.repeat(20)}`);

/** One transaction paying two requests (a batch) and, in the same tx, another account's. */
export const BATCH_TX = `0x${'ab'.repeat(32)}`;
export const SECOND_TX = `0x${'cd'.repeat(32)}`;
/** Tron transaction ids are stored as TronGrid gives them: 64 hex digits, no 0x. */
export const TRON_TX = 'ef'.repeat(32);

const BATCH_AT = new Date('2026-01-10T10:00:00Z');
const SECOND_AT = new Date('2026-01-12T00:00:00Z');
const TRON_AT = new Date('2026-01-15T00:00:00Z');
const OTHER_AT = new Date('2026-01-11T00:00:00Z');

/** The shop's requests: USDC on base (6 decimals), DAI on base (18), USDT on Tron (6). */
export let usdcRequest: RequestRow;
export let daiRequest: RequestRow;
export let tronRequest: RequestRow;
export let otherRequest: RequestRow;
/** The payments, in the order they are inserted; `ids` maps them to their row ids. */
const NAMES = ['usdc', 'dai', 'second', 'tron', 'other'] as const;
export type Name = (typeof NAMES)[number];
export let ids: Record<Name, string>;

/**
 * Registers the file's app, its two accounts, their requests and payments. Each test file
 * calls it once.
 */
export function setupPaymentsSearch(): void {
  beforeAll(async () => {
    t = await createTestApp();
    shop = await createTenant(t.db, 'Shop');
    other = await createTenant(t.db, 'Other shop');

    const base = must(t.chains.network('base'));
    const tron = must(t.chains.network('tron'));
    const usdc = must(t.chains.currency('USDC-base'));
    const dai = must(t.chains.currency('DAI-base'));
    const usdt = must(t.chains.currency('USDT-tron'));
    const common = { clientIdId: null, network: base, payee: PAYEE } as const;
    [usdcRequest, daiRequest, tronRequest] = (await insertRequests(t.db, [
      {
        ...common,
        accountId: shop.accountId,
        invoiceCurrency: usdc,
        paymentCurrency: usdc,
        // 10.4 USDC owed, 10.5 then 0.000001 paid: both payments pay beyond it.
        expectedAmount: 10_400_000n,
        reference: 'order-1',
        customerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
      },
      {
        ...common,
        accountId: shop.accountId,
        invoiceCurrency: dai,
        paymentCurrency: dai,
        expectedAmount: 2n * 10n ** 18n,
        reference: 'order-2',
      },
      {
        accountId: shop.accountId,
        clientIdId: null,
        network: tron,
        invoiceCurrency: usdt,
        paymentCurrency: usdt,
        expectedAmount: 5_000_000n,
        payee: TRON_PAYEE,
      },
    ])) as [RequestRow, RequestRow, RequestRow];
    // The other account uses the same payee, payer, merchant reference and even transaction.
    [otherRequest] = (await insertRequests(t.db, [
      {
        ...common,
        accountId: other.accountId,
        invoiceCurrency: usdc,
        paymentCurrency: usdc,
        expectedAmount: 1_000_000n,
        reference: 'order-1',
      },
    ])) as [RequestRow];
    await t.db.update(requests).set({ status: 'paid' }).where(eq(requests.id, usdcRequest.id));

    const evm = { network: 'base', blockHash: `0x${'00'.repeat(32)}`, tokenAddress: usdc.address };
    const rows = await t.db
      .insert(payments)
      .values([
        {
          ...evm,
          accountId: shop.accountId,
          requestRowId: usdcRequest.id,
          ...searchColumnsOf(usdcRequest),
          txHash: BATCH_TX,
          logIndex: 0,
          blockNumber: 100n,
          amount: 10_500_000n,
          feeAmount: 250_000n,
          feeAddress: FEE_ADDRESS,
          payee: PAYEE,
          payerAddress: PAYER,
          paymentReference: usdcRequest.paymentReference,
          timestamp: BATCH_AT,
        },
        {
          ...evm,
          accountId: shop.accountId,
          requestRowId: daiRequest.id,
          ...searchColumnsOf(daiRequest),
          txHash: BATCH_TX,
          logIndex: 1,
          blockNumber: 100n,
          tokenAddress: dai.address,
          amount: 1_234_500_000_000_000_000n,
          feeAmount: 0n,
          payee: PAYEE,
          payerAddress: PAYER,
          paymentReference: daiRequest.paymentReference,
          timestamp: BATCH_AT,
        },
        {
          ...evm,
          accountId: shop.accountId,
          requestRowId: usdcRequest.id,
          ...searchColumnsOf(usdcRequest),
          txHash: SECOND_TX,
          logIndex: 3,
          blockNumber: 200n,
          amount: 1n,
          feeAmount: 0n,
          payee: PAYEE,
          payerAddress: SENDER,
          payerEoaAddress: EOA,
          paymentReference: usdcRequest.paymentReference,
          timestamp: SECOND_AT,
        },
        {
          network: 'tron',
          blockHash: '00'.repeat(32),
          tokenAddress: usdt.address,
          accountId: shop.accountId,
          requestRowId: tronRequest.id,
          ...searchColumnsOf(tronRequest),
          txHash: TRON_TX,
          logIndex: 0,
          blockNumber: 300n,
          amount: 5_000_000n,
          feeAmount: 0n,
          payee: TRON_PAYEE,
          payerAddress: TRON_PAYER,
          paymentReference: tronRequest.paymentReference,
          timestamp: TRON_AT,
        },
        {
          ...evm,
          accountId: other.accountId,
          requestRowId: otherRequest.id,
          ...searchColumnsOf(otherRequest),
          txHash: BATCH_TX,
          logIndex: 2,
          blockNumber: 100n,
          amount: 1_000_000n,
          feeAmount: 0n,
          payee: PAYEE,
          payerAddress: PAYER,
          paymentReference: otherRequest.paymentReference,
          timestamp: OTHER_AT,
        },
      ])
      .returning({ id: payments.id });
    ids = Object.fromEntries(NAMES.map((name, i) => [name, must(rows[i]).id])) as Record<
      Name,
      string
    >;
  });
  afterAll(async () => {
    await t?.close();
  });
}

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('missing test fixture');
  return value;
}

export type Headers = Record<string, string>;
export const apiKey = (tenant: Tenant): Headers => ({ 'x-api-key': tenant.apiKey });

export function search(query: Record<string, string>, headers: Headers = apiKey(shop)) {
  const qs = new URLSearchParams(query).toString();
  return t.app.inject({ method: 'GET', url: `/v2/payments${qs ? `?${qs}` : ''}`, headers });
}

export interface Page {
  payments: { id: string; [key: string]: unknown }[];
  pagination: {
    total: number;
    limit: number;
    offset: number;
    hasMore: boolean;
    nextCursor: string | null;
    totalExact: boolean;
  };
}

export async function found(query: Record<string, string>, headers?: Headers): Promise<Page> {
  const res = await search(query, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** The payments found, in order, by fixture name (for readable failures). */
export async function idsOf(query: Record<string, string>, headers?: Headers): Promise<string[]> {
  const page = await found(query, headers);
  const names = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  return page.payments.map((p) => names.get(p.id) ?? p.id);
}

/** The batch's two payments share a timestamp, so the id (descending) orders them. */
export function batchOrder(): Name[] {
  return ids.usdc > ids.dai ? ['usdc', 'dai'] : ['dai', 'usdc'];
}

/** Every one of the shop's payments, newest first. */
export const ALL = (): Name[] => ['tron', 'second', ...batchOrder()];

export async function validationErrors(query: Record<string, string>) {
  const res = await search(query);
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json();
  expect(body).toMatchObject({
    statusCode: 400,
    message: 'Validation failed',
    error: 'Bad Request',
  });
  return body.errors;
}
