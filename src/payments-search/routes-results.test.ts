import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { SHOP_ORIGIN } from '../../test/fixtures.ts';
import {
  ALL,
  apiKey,
  BATCH_TX,
  batchOrder,
  EOA,
  FEE_ADDRESS,
  found,
  ids,
  idsOf,
  other,
  otherRequest,
  PAYER,
  SECOND_TX,
  SENDER,
  search,
  setupPaymentsSearch,
  shop,
  TRON_PAYER,
  TRON_TX,
  t,
  usdcRequest,
  validationErrors,
} from '../../test/payments-search.ts';
import { clientIds, payments, requests } from '../db/schema.ts';

/**
 * What GET /v2/payments returns: each payment as the API shows it, in pages, and only to the
 * account (or client ID) it belongs to.
 */

setupPaymentsSearch();

describe('GET /v2/payments: the payment', () => {
  it('returns a USDC payment with human-readable amount and fee, its request and its payer', async () => {
    const page = await found({ txHash: BATCH_TX });
    expect(page.payments.find((p) => p.id === ids.usdc)).toEqual({
      id: ids.usdc,
      amount: '10.5',
      sourceNetwork: 'base',
      destinationNetwork: 'base',
      sourceTxHash: BATCH_TX,
      // Same-chain: one transaction, no arrival on another network.
      destinationTxHash: null,
      timestamp: '2026-01-10T10:00:00.000Z',
      type: 'direct',
      currency: 'USDC',
      paymentCurrency: 'USDC-base',
      conversionRateSource: null,
      conversionRateDestination: null,
      convertedAmountSource: null,
      convertedAmountDestination: null,
      // The wallet sent the payee's 10.5 and the 0.25 fee; the payee got 10.5.
      paidAmount: '10.75',
      paidCurrency: 'USDC',
      paidNetwork: 'base',
      receivedAmount: '10.5',
      receivedCurrency: 'USDC',
      receivedNetwork: 'base',
      // 10.4 was owed: this payment paid 0.1 beyond it.
      excessAmount: '0.1',
      excessCurrency: 'USDC',
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
      note: null,
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

  it('counts all of a payment made after the request was paid in full as excess, its earlier one found on no page', async () => {
    // Only the second payment matches; the first, which crossed what was owed, is read anyway.
    const page = await found({ txHash: SECOND_TX });
    expect(page.payments).toMatchObject([
      {
        id: ids.second,
        paidAmount: '0.000001',
        receivedAmount: '0.000001',
        excessAmount: '0.000001',
        excessCurrency: 'USDC',
      },
    ]);
    // A payment that paid no more than was owed has none.
    const dai = (await found({ txHash: BATCH_TX })).payments.find((p) => p.id === ids.dai);
    expect(dai).toMatchObject({ excessAmount: null, excessCurrency: null });
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

  it('ignores unknown query parameters, as the reference does', async () => {
    for (const [query, extra] of [
      [{ type: 'direct' }, { status: 'paid' }],
      [{ txHash: BATCH_TX }, { walletaddress: PAYER }],
    ] as const) {
      const plain = await search(query);
      const withExtra = await search({ ...query, ...extra });
      expect(withExtra.statusCode, withExtra.body).toBe(200);
      expect(withExtra.json()).toEqual(plain.json());
    }
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
