import { describe, expect, it } from 'vitest';
import {
  ALL,
  BATCH_TX,
  batchOrder,
  daiRequest,
  EOA,
  FEE_ADDRESS,
  found,
  idsOf,
  PAYEE,
  PAYER,
  SENDER,
  setupPaymentsSearch,
  TRON_PAYEE,
  TRON_PAYER,
  tronRequest,
  usdcRequest,
  validationErrors,
} from '../../test/payments-search.ts';
import { DATE_ORDER_MESSAGE, FILTER_REQUIRED_MESSAGE } from './search.ts';

/** The filters of GET /v2/payments: each one and its checks, the dates, and that one is required. */

setupPaymentsSearch();

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
