import { eq } from 'drizzle-orm';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, SHOP_ORIGIN, type Tenant } from '../../test/fixtures.ts';
import { evmToTron } from '../chains/tron-address.ts';
import { clientIds, payments, requests } from '../db/schema.ts';
import { searchColumnsOf } from '../payments/records.ts';
import { insertRequests, type RequestRow } from '../requests/requests.ts';
import { DATE_ORDER_MESSAGE, FILTER_REQUIRED_MESSAGE } from './search.ts';

/**
 * GET /v2/payments over HTTP. Requests are made the real way; payments are written as the
 * indexer records them (base units), so the search is proved against the stored form.
 */

let t: TestApp;
let shop: Tenant;
let other: Tenant;

const PAYEE = getAddress(`0x${'a1'.repeat(20)}`);
const PAYER = getAddress(`0x${'b2'.repeat(20)}`);
const SENDER = getAddress(`0x${'c3'.repeat(20)}`);
const EOA = getAddress(`0x${'d4'.repeat(20)}`);
const FEE_ADDRESS = getAddress(`0x${'e5'.repeat(20)}`);
const TRON_PAYEE = evmToTron(`0x${'16'.repeat(20)}`);
const TRON_PAYER = evmToTron(`0x${'27'.repeat(20)}`);

/** One transaction paying two requests (a batch) and, in the same tx, another account's. */
const BATCH_TX = `0x${'ab'.repeat(32)}`;
const SECOND_TX = `0x${'cd'.repeat(32)}`;
/** Tron transaction ids are stored as TronGrid gives them: 64 hex digits, no 0x. */
const TRON_TX = 'ef'.repeat(32);

const BATCH_AT = new Date('2026-01-10T10:00:00Z');
const SECOND_AT = new Date('2026-01-12T00:00:00Z');
const TRON_AT = new Date('2026-01-15T00:00:00Z');
const OTHER_AT = new Date('2026-01-11T00:00:00Z');

/** The shop's requests: USDC on base (6 decimals), DAI on base (18), USDT on Tron (6). */
let usdcRequest: RequestRow;
let daiRequest: RequestRow;
let tronRequest: RequestRow;
let otherRequest: RequestRow;
/** The payments, in the order they are inserted; `ids` maps them to their row ids. */
const NAMES = ['usdc', 'dai', 'second', 'tron', 'other'] as const;
type Name = (typeof NAMES)[number];
let ids: Record<Name, string>;

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
      expectedAmount: 10_500_001n,
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

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('missing test fixture');
  return value;
}

type Headers = Record<string, string>;
const apiKey = (tenant: Tenant): Headers => ({ 'x-api-key': tenant.apiKey });

function search(query: Record<string, string>, headers: Headers = apiKey(shop)) {
  const qs = new URLSearchParams(query).toString();
  return t.app.inject({ method: 'GET', url: `/v2/payments${qs ? `?${qs}` : ''}`, headers });
}

interface Page {
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

async function found(query: Record<string, string>, headers?: Headers): Promise<Page> {
  const res = await search(query, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** The payments found, in order, by fixture name (for readable failures). */
async function idsOf(query: Record<string, string>, headers?: Headers): Promise<string[]> {
  const page = await found(query, headers);
  const names = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  return page.payments.map((p) => names.get(p.id) ?? p.id);
}

/** The batch's two payments share a timestamp, so the id (descending) orders them. */
function batchOrder(): Name[] {
  return ids.usdc > ids.dai ? ['usdc', 'dai'] : ['dai', 'usdc'];
}

/** Every one of the shop's payments, newest first. */
const ALL = (): Name[] => ['tron', 'second', ...batchOrder()];

async function validationErrors(query: Record<string, string>) {
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

describe('GET /v2/payments: the payment', () => {
  it('returns a USDC payment with human-readable amount and fee, its request and its payer', async () => {
    const page = await found({ txHash: BATCH_TX });
    expect(page.payments.find((p) => p.id === ids.usdc)).toEqual({
      id: ids.usdc,
      amount: '10.5',
      sourceNetwork: 'base',
      destinationNetwork: 'base',
      sourceTxHash: BATCH_TX,
      destinationTxHash: BATCH_TX,
      timestamp: '2026-01-10T10:00:00.000Z',
      type: 'direct',
      currency: 'USDC',
      paymentCurrency: 'USDC-base',
      fees: [
        {
          type: 'platform',
          stage: 'sending',
          amount: '0.25',
          currency: 'USDC',
          receiverAddress: FEE_ADDRESS,
          network: 'base',
        },
      ],
      request: {
        requestId: usdcRequest.requestId,
        paymentReference: `0x${usdcRequest.paymentReference}`,
        hasBeenPaid: true,
        customerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
        reference: 'order-1',
      },
      payerAddress: PAYER,
      payerEoaAddress: null,
      detectionSource: 'request-network',
    });
  });

  it('formats an 18-decimal amount and gives no fees when the fee is 0', async () => {
    const page = await found({ txHash: BATCH_TX });
    expect(page.payments.find((p) => p.id === ids.dai)).toMatchObject({
      amount: '1.2345',
      currency: 'DAI',
      paymentCurrency: 'DAI-base',
      fees: [],
      request: { hasBeenPaid: false, customerInfo: null, reference: 'order-2' },
    });
  });

  it('formats the smallest 6-decimal unit and reports the connected wallet', async () => {
    const page = await found({ txHash: SECOND_TX });
    expect(page.payments).toMatchObject([
      { id: ids.second, amount: '0.000001', payerAddress: SENDER, payerEoaAddress: EOA },
    ]);
  });

  it('returns a Tron payment with its network, base58 addresses and transaction id', async () => {
    const page = await found({ txHash: `0x${TRON_TX}` });
    expect(page.payments).toMatchObject([
      {
        id: ids.tron,
        amount: '5',
        sourceNetwork: 'tron',
        destinationNetwork: 'tron',
        sourceTxHash: TRON_TX,
        currency: 'USDT',
        paymentCurrency: 'USDT-tron',
        payerAddress: TRON_PAYER,
        request: { reference: null },
      },
    ]);
  });
});

describe('GET /v2/payments: filters', () => {
  it('txHash returns every payment of the transaction, batches included, newest first', async () => {
    expect(await idsOf({ txHash: BATCH_TX })).toEqual(batchOrder());
    expect(await idsOf({ txHash: BATCH_TX.toUpperCase().replace('0X', '0x') })).toEqual(
      batchOrder(),
    );
    expect(await idsOf({ txHash: `0x${'99'.repeat(32)}` })).toEqual([]);
  });

  it.each([
    ['no 0x', 'ab'.repeat(32)],
    ['too short', `0x${'ab'.repeat(31)}`],
    ['not hex', `0x${'zz'.repeat(32)}`],
  ])('txHash %s is a 400', async (_case, txHash) => {
    expect(await validationErrors({ txHash })).toEqual([
      { field: 'txHash', message: 'must be 0x followed by 64 hex digits' },
    ]);
  });

  it('walletAddress matches the payee, the sender or the connected wallet, in any case', async () => {
    expect(await idsOf({ walletAddress: PAYEE })).toEqual(['second', ...batchOrder()]);
    expect(await idsOf({ walletAddress: PAYEE.toLowerCase() })).toEqual([
      'second',
      ...batchOrder(),
    ]);
    expect(await idsOf({ walletAddress: PAYER.toUpperCase().replace('0X', '0x') })).toEqual(
      batchOrder(),
    );
    expect(await idsOf({ walletAddress: SENDER })).toEqual(['second']);
    expect(await idsOf({ walletAddress: EOA.toLowerCase() })).toEqual(['second']);
    expect(await idsOf({ walletAddress: FEE_ADDRESS })).toEqual([]);
  });

  it('walletAddress matches Tron payees and payers in base58', async () => {
    expect(await idsOf({ walletAddress: TRON_PAYEE })).toEqual(['tron']);
    expect(await idsOf({ walletAddress: TRON_PAYER })).toEqual(['tron']);
  });

  it.each(['not-an-address', `0x${'a1'.repeat(19)}`, 'T000000000000000000000000000000000'])(
    'walletAddress %s is a 400',
    async (walletAddress) => {
      expect(await validationErrors({ walletAddress })).toEqual([
        {
          field: 'walletAddress',
          message: 'must be an EVM address (0x followed by 40 hex digits) or a Tron address (T…)',
        },
      ]);
    },
  );

  it('paymentReference matches with or without 0x, in any case', async () => {
    const reference = usdcRequest.paymentReference;
    expect(await idsOf({ paymentReference: reference })).toEqual(['second', 'usdc']);
    expect(await idsOf({ paymentReference: `0x${reference}` })).toEqual(['second', 'usdc']);
    expect(await idsOf({ paymentReference: `0x${reference.toUpperCase()}` })).toEqual([
      'second',
      'usdc',
    ]);
    expect(await idsOf({ paymentReference: `0x${tronRequest.paymentReference}` })).toEqual([
      'tron',
    ]);
  });

  it.each(['0x1234', `0x${'ab'.repeat(9)}`, 'zz'.repeat(8)])(
    'paymentReference %s is a 400',
    async (paymentReference) => {
      expect(await validationErrors({ paymentReference })).toEqual([
        { field: 'paymentReference', message: 'must be 16 hex digits, with or without 0x' },
      ]);
    },
  );

  it('requestId returns the request’s payments, in any case', async () => {
    expect(await idsOf({ requestId: usdcRequest.requestId })).toEqual(['second', 'usdc']);
    expect(await idsOf({ requestId: daiRequest.requestId.toUpperCase() })).toEqual(['dai']);
    expect(await idsOf({ requestId: `01${'0'.repeat(64)}` })).toEqual([]);
  });

  it('reference is the request’s merchant reference, matched exactly', async () => {
    expect(await idsOf({ reference: 'order-1' })).toEqual(['second', 'usdc']);
    expect(await idsOf({ reference: 'order-2' })).toEqual(['dai']);
    expect(await idsOf({ reference: 'ORDER-1' })).toEqual([]);
  });

  it('type direct matches every payment; the other types match nothing yet', async () => {
    expect(await idsOf({ type: 'direct' })).toEqual(ALL());
    for (const type of ['conversion', 'crosschain', 'recurring']) {
      const page = await found({ type });
      expect(page).toEqual({
        payments: [],
        pagination: {
          total: 0,
          limit: 20,
          offset: 0,
          hasMore: false,
          nextCursor: null,
          totalExact: true,
        },
      });
    }
  });

  it('an unknown type is a 400', async () => {
    expect(await validationErrors({ type: 'refund' })).toEqual([
      { field: 'type', message: 'must be equal to one of the allowed values' },
    ]);
  });

  it('invoiceCurrency and paymentCurrency take currency ids in any case', async () => {
    expect(await idsOf({ paymentCurrency: 'usdc-BASE' })).toEqual(['second', 'usdc']);
    expect(await idsOf({ invoiceCurrency: 'DAI-base' })).toEqual(['dai']);
    expect(await idsOf({ paymentCurrency: 'usdt-tron' })).toEqual(['tron']);
    expect(await idsOf({ invoiceCurrency: 'EUR' })).toEqual([]);
    expect(await idsOf({ paymentCurrency: 'NOPE-base' })).toEqual([]);
  });

  it('invoiceCurrency and paymentCurrency also take a symbol, as a payment’s currency shows it', async () => {
    expect(await idsOf({ invoiceCurrency: 'USDC' })).toEqual(['second', 'usdc']);
    expect(await idsOf({ invoiceCurrency: 'dai' })).toEqual(['dai']);
    expect(await idsOf({ paymentCurrency: 'USDT' })).toEqual(['tron']);
  });

  it('filters are ANDed', async () => {
    expect(await idsOf({ walletAddress: PAYER, paymentCurrency: 'DAI-base' })).toEqual(['dai']);
    expect(await idsOf({ txHash: BATCH_TX, reference: 'order-1' })).toEqual(['usdc']);
    expect(await idsOf({ txHash: BATCH_TX, requestId: tronRequest.requestId })).toEqual([]);
    expect(
      await idsOf({ walletAddress: PAYEE, type: 'direct', fromDate: '2026-01-11T00:00:00Z' }),
    ).toEqual(['second']);
  });
});

describe('GET /v2/payments: dates', () => {
  it('fromDate and toDate are inclusive to the instant', async () => {
    expect(await idsOf({ fromDate: '2026-01-12T00:00:00Z' })).toEqual(['tron', 'second']);
    expect(await idsOf({ fromDate: '2026-01-12T00:00:00.001Z' })).toEqual(['tron']);
    expect(await idsOf({ toDate: '2026-01-12T00:00:00Z' })).toEqual(['second', ...batchOrder()]);
    expect(await idsOf({ toDate: '2026-01-10T09:59:59.999Z' })).toEqual([]);
    expect(
      await idsOf({ fromDate: '2026-01-12T00:00:00Z', toDate: '2026-01-12T00:00:00Z' }),
    ).toEqual(['second']);
    expect(
      await idsOf({ fromDate: '2026-01-10T10:00:00Z', toDate: '2026-01-14T23:59:59Z' }),
    ).toEqual(['second', ...batchOrder()]);
  });

  it('toDate before fromDate is a 400 with the reference message', async () => {
    expect(
      await validationErrors({ fromDate: '2026-01-12T00:00:00Z', toDate: '2026-01-11T23:59:59Z' }),
    ).toEqual([{ field: 'toDate', message: DATE_ORDER_MESSAGE }]);
    expect(DATE_ORDER_MESSAGE).toBe('toDate must be after or equal to fromDate');
  });

  it.each([
    ['an offset instead of Z', '2026-01-12T00:00:00+00:00'],
    ['no zone', '2026-01-12T00:00:00'],
    ['a date alone', '2026-01-12'],
    ['no seconds', '2026-01-12T00:00Z'],
    ['a day February lacks', '2026-02-30T00:00:00Z'],
    ['an hour past 23', '2026-01-12T24:00:00Z'],
    ['words', 'yesterday'],
    ['nothing', ''],
  ])('a date with %s is a 400 on either field', async (_case, value) => {
    const message = 'must be an ISO 8601 UTC date-time ending in Z, such as 2026-01-31T00:00:00Z';
    expect(await validationErrors({ fromDate: value })).toEqual([{ field: 'fromDate', message }]);
    expect(await validationErrors({ toDate: value })).toEqual([{ field: 'toDate', message }]);
  });

  it('reports every bad field at once', async () => {
    expect(await validationErrors({ txHash: '0x1', walletAddress: 'x', fromDate: 'soon' })).toEqual(
      [
        { field: 'txHash', message: 'must be 0x followed by 64 hex digits' },
        {
          field: 'walletAddress',
          message: 'must be an EVM address (0x followed by 40 hex digits) or a Tron address (T…)',
        },
        {
          field: 'fromDate',
          message: 'must be an ISO 8601 UTC date-time ending in Z, such as 2026-01-31T00:00:00Z',
        },
      ],
    );
  });
});

describe('GET /v2/payments: at least one filter', () => {
  it.each([
    ['no query', {}],
    ['only limit and offset', { limit: '5', offset: '0' }],
  ])('%s is a 400', async (_case, query) => {
    expect(await validationErrors(query)).toEqual([
      { field: 'querystring', message: FILTER_REQUIRED_MESSAGE },
    ]);
    expect(FILTER_REQUIRED_MESSAGE).toBe(
      'at least one search filter is required: txHash, walletAddress, paymentReference, requestId, reference, type, invoiceCurrency, paymentCurrency, fromDate, toDate',
    );
  });

  it('a date alone is a filter', async () => {
    expect(await idsOf({ toDate: '2030-01-01T00:00:00Z' })).toEqual(ALL());
  });
});

describe('GET /v2/payments: pagination', () => {
  const every = { type: 'direct' };

  it('defaults to 20 from offset 0 and reports the total', async () => {
    expect((await found(every)).pagination).toEqual({
      total: 4,
      limit: 20,
      offset: 0,
      hasMore: false,
      nextCursor: null,
      totalExact: true,
    });
  });

  it('pages with limit and offset, hasMore until the last page', async () => {
    const first = await found({ ...every, limit: '3' });
    expect(first.pagination).toEqual({
      total: 4,
      limit: 3,
      offset: 0,
      hasMore: true,
      nextCursor: expect.any(String),
      totalExact: true,
    });
    const second = await found({ ...every, limit: '3', offset: '3' });
    expect(second.pagination).toEqual({
      total: 4,
      limit: 3,
      offset: 3,
      hasMore: false,
      nextCursor: null,
      totalExact: true,
    });
    // The cursor of the first page reaches the same second page.
    const next = await found({ ...every, limit: '3', cursor: first.pagination.nextCursor ?? '' });
    expect(next.payments.map((p) => p.id)).toEqual(second.payments.map((p) => p.id));
    expect(next.pagination).toMatchObject({ total: 4, offset: 0, hasMore: false });
    expect([...first.payments, ...second.payments].map((p) => p.id)).toEqual(
      ALL().map((name) => ids[name]),
    );
    expect((await found({ ...every, limit: '2', offset: '2' })).pagination.hasMore).toBe(false);
    expect((await found({ ...every, limit: '1', offset: '2' })).pagination.hasMore).toBe(true);
  });

  it('an offset past the end is an empty page that still counts the total', async () => {
    expect(await found({ ...every, offset: '10' })).toEqual({
      payments: [],
      pagination: {
        total: 4,
        limit: 20,
        offset: 10,
        hasMore: false,
        nextCursor: null,
        totalExact: true,
      },
    });
  });

  it('limit 100 is the most', async () => {
    expect((await found({ ...every, limit: '100' })).pagination.limit).toBe(100);
    expect(await validationErrors({ ...every, limit: '101' })).toEqual([
      { field: 'limit', message: 'must be <= 100' },
    ]);
  });

  it.each([
    ['limit', '0', 'must be >= 1'],
    ['limit', 'ten', 'must be integer'],
    ['limit', '1.5', 'must be integer'],
    ['offset', '-1', 'must be >= 0'],
    ['offset', 'x', 'must be integer'],
  ])('%s=%s is a 400', async (field, value, message) => {
    expect(await validationErrors({ ...every, [field]: value })).toEqual([{ field, message }]);
  });
});

describe('GET /v2/payments: access', () => {
  it('never returns another account’s payments, even of the same transaction', async () => {
    expect(await idsOf({ txHash: BATCH_TX })).toEqual(batchOrder());
    expect(await idsOf({ walletAddress: PAYER })).toEqual(batchOrder());
    expect(await idsOf({ reference: 'order-1' })).toEqual(['second', 'usdc']);
    expect(await idsOf({ requestId: otherRequest.requestId })).toEqual([]);
    expect(await idsOf({ paymentReference: otherRequest.paymentReference })).toEqual([]);
    expect((await found({ type: 'direct' })).pagination.total).toBe(4);
  });

  it('the other account sees only its own', async () => {
    const theirs = apiKey(other);
    expect(await idsOf({ txHash: BATCH_TX }, theirs)).toEqual(['other']);
    expect(await idsOf({ type: 'direct' }, theirs)).toEqual(['other']);
    expect(await idsOf({ requestId: usdcRequest.requestId }, theirs)).toEqual([]);
  });

  it('accepts a client ID, showing only the payments of the requests made with it', async () => {
    const backend = { 'x-client-id': shop.backendClientId };
    expect(await idsOf({ txHash: BATCH_TX }, backend)).toEqual([]);
    const [row] = await t.db
      .select()
      .from(clientIds)
      .where(eq(clientIds.clientId, shop.backendClientId));
    // As if the request had been made with the client ID: its payments carry it too.
    const madeWith = async (clientIdId: string | null) => {
      await t.db.update(requests).set({ clientIdId }).where(eq(requests.id, usdcRequest.id));
      await t.db
        .update(payments)
        .set({ clientIdId })
        .where(eq(payments.requestRowId, usdcRequest.id));
    };
    await madeWith(row?.id ?? null);
    try {
      expect(await idsOf({ txHash: BATCH_TX }, backend)).toEqual(['usdc']);
      // Both payments of that request, and nothing else of the account's.
      expect(await idsOf({ type: 'direct' }, backend)).toEqual(['second', 'usdc']);
      // The account's other credentials still see every payment.
      expect(await idsOf({ txHash: BATCH_TX })).toEqual(batchOrder());
      const browser = { 'x-client-id': shop.browserClientId, origin: SHOP_ORIGIN };
      expect(await idsOf({ txHash: BATCH_TX }, browser)).toEqual([]);
      expect(
        await idsOf(
          { txHash: BATCH_TX },
          { 'x-client-id': other.browserClientId, origin: SHOP_ORIGIN },
        ),
      ).toEqual([]);
    } finally {
      await madeWith(null);
    }
  });

  it('answers 401 without credentials', async () => {
    const res = await search({ type: 'direct' }, {});
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
  });

  it('refuses unknown query parameters', async () => {
    expect(await validationErrors({ type: 'direct', status: 'paid' })).toEqual([
      { field: 'status', message: 'is not allowed' },
    ]);
    expect(await validationErrors({ txHash: BATCH_TX, walletaddress: PAYER })).toEqual([
      { field: 'walletaddress', message: 'is not allowed' },
    ]);
  });

  it('is documented under V2/Payments with its credentials', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = document.paths['/v2/payments'].get;
    expect(operation.tags).toEqual(['V2/Payments']);
    expect(operation.security).toEqual([
      { ApiKey: [] },
      { ClientId: [] },
      { SessionCookie: [] },
      { SessionBearer: [] },
    ]);
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['txHash', 'walletAddress', 'fromDate', 'toDate', 'limit', 'offset']),
    );
  });
});
