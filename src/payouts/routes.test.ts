import { count, eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  apiKey,
  created,
  setupRequestsApp,
  t,
  tenantA,
  tenantB,
  validationErrors,
  wallet,
} from '../../test/requests.ts';
import { evmToTron } from '../chains/tron-address.ts';
import { requests } from '../db/schema.ts';
import { SAME_NETWORK_MESSAGE, TRON_BATCH_MESSAGE } from '../payments/calldata/batch.ts';
import { NO_REQUESTS_MESSAGE, REQUESTS_XOR_IDS_MESSAGE } from './batch.ts';
import { MAX_BATCH_ITEMS } from './schemas.ts';

/**
 * `/v2/payouts` and `/v2/payouts/batch` over HTTP on the real app: every rule they refuse
 * with, each leaving nothing written, and the shapes of what they answer. (Payments sent on
 * a local chain: test/e2e/payouts.test.ts.)
 */

setupRequestsApp();

const post = (url: string, payload: object, headers = apiKey(tenantA)) =>
  t.app.inject({ method: 'POST', url, headers, payload });

const payout = (extra: Record<string, unknown> = {}) => ({
  payee: wallet(1).address,
  amount: '10',
  invoiceCurrency: 'USDC-base',
  paymentCurrency: 'USDC-base',
  ...extra,
});

/** How many requests tenant A has: what a refused call must leave unchanged. */
async function requestCount(): Promise<number> {
  const [row] = await t.db
    .select({ n: count() })
    .from(requests)
    .where(eq(requests.accountId, tenantA.accountId));
  return row?.n ?? 0;
}

/** Expects `call` to be refused with `status` and `message`, writing nothing. */
async function refused(
  call: () => Promise<{ statusCode: number; body: string; json: () => Record<string, unknown> }>,
  status: number,
  message: string,
) {
  const before = await requestCount();
  const res = await call();
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().message).toBe(message);
  expect(await requestCount()).toBe(before);
  return res;
}

describe('POST /v2/payouts', () => {
  it('answers the request, its reference and the calldata (approval included without a payer wallet)', async () => {
    const res = await post('/v2/payouts', payout({ reference: 'run-7' }));
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([
      'metadata',
      'paymentReference',
      'requestId',
      'transactions',
    ]);
    expect(body.transactions).toHaveLength(2);
    expect(body.transactions[0].value).toEqual({ type: 'BigNumber', hex: '0x0' });
    expect(body.metadata).toMatchObject({
      stepsRequired: 2,
      needsApproval: true,
      approvalTransactionIndex: 0,
    });
  });

  it('takes the payer wallet under any of its three names, and refuses two that differ', async () => {
    for (const name of ['payerWallet', 'payerAddress', 'payer']) {
      const res = await post('/v2/payouts', payout({ [name]: wallet(2).address }));
      expect(res.statusCode, res.body).toBe(201);
    }
    const same = await post(
      '/v2/payouts',
      payout({ payerWallet: wallet(2).address, payer: wallet(2).address.toLowerCase() }),
    );
    expect(same.statusCode, same.body).toBe(201);
    const before = await requestCount();
    const res = await post(
      '/v2/payouts',
      payout({ payerWallet: wallet(2).address, payerAddress: wallet(3).address }),
    );
    expect(validationErrors(res)).toEqual([
      { field: 'payerAddress', message: 'names another wallet than payerWallet; send one of them' },
    ]);
    expect(await requestCount()).toBe(before);
  });

  it('checks the fee before writing anything', async () => {
    const badPercentage = await refused(
      () => post('/v2/payouts', payout({ feePercentage: '100.5', feeAddress: wallet(4).address })),
      400,
      'Validation failed',
    );
    expect(badPercentage.json().errors).toEqual([
      {
        field: 'feePercentage',
        message: 'must be a number from 0 to 100 with at most 2 decimals',
      },
    ]);
    const alone = await refused(
      () => post('/v2/payouts', payout({ feePercentage: '1' })),
      400,
      'Validation failed',
    );
    expect(alone.json().errors).toEqual([
      { field: 'feeAddress', message: 'feePercentage and feeAddress must be sent together' },
    ]);
  });

  it('refuses a payee or payer that is no address of the network', async () => {
    for (const extra of [
      { payee: 'not-a-wallet' },
      { payerWallet: evmToTron(wallet(2).address) },
    ]) {
      const before = await requestCount();
      const res = await post('/v2/payouts', payout(extra));
      expect(res.statusCode, res.body).toBe(400);
      expect(await requestCount()).toBe(before);
    }
  });

  it('pays a Tron payout in TRC-20: the approval and the fee-proxy call, in base58', async () => {
    const payee = evmToTron(wallet(1).address);
    const res = await post(
      '/v2/payouts',
      payout({ payee, invoiceCurrency: 'USDT-tron', paymentCurrency: 'USDT-tron' }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const [approve, pay] = res.json().transactions;
    expect(approve).toMatchObject({ type: 'tron', functionSelector: 'approve(address,uint256)' });
    expect(pay).toMatchObject({
      type: 'tron',
      functionSelector:
        'transferFromWithReferenceAndFee(address,address,uint256,bytes,uint256,address)',
    });
    expect(pay.parameters[1]).toEqual({ type: 'address', value: payee });
  });

  it('writes nothing when the chain cannot be read for the calldata (503), so a retry makes no twin', async () => {
    // Only base has a chain here: matic's balance and allowance reads find no node.
    const onMatic = { invoiceCurrency: 'USDC-matic', paymentCurrency: 'USDC-matic' };
    await refused(
      () => post('/v2/payouts', payout({ ...onMatic, payerWallet: wallet(2).address })),
      503,
      'Network matic is not available on this server: no RPC is configured for it',
    );
  });

  it('needs an API key or a client ID', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v2/payouts', payload: payout() });
    expect(res.statusCode).toBe(401);
  });
});

describe('POST /v2/payouts/batch', () => {
  const item = (extra: Record<string, unknown> = {}) => ({
    payee: wallet(1).address,
    amount: '1',
    invoiceCurrency: 'USDC-base',
    paymentCurrency: 'USDC-base',
    ...extra,
  });

  it('writes none of its new requests when the chain cannot be read for the calldata (503)', async () => {
    const onMatic = { invoiceCurrency: 'USDC-matic', paymentCurrency: 'USDC-matic' };
    await refused(
      () =>
        post('/v2/payouts/batch', {
          requests: [item(onMatic), item({ ...onMatic, amount: '2' })],
          payer: wallet(2).address,
        }),
      503,
      'Network matic is not available on this server: no RPC is configured for it',
    );
  });

  it('keeps the existing requests it was given when the chain cannot be read (503)', async () => {
    const onMatic = { invoiceCurrency: 'USDC-matic', paymentCurrency: 'USDC-matic' };
    const requestIds: string[] = [];
    for (const amount of ['1', '2']) {
      const res = await post('/v2/request', item({ ...onMatic, amount }));
      expect(res.statusCode, res.body).toBe(201);
      requestIds.push(res.json().requestId);
    }
    await refused(
      () => post('/v2/payouts/batch', { requestIds, payer: wallet(2).address }),
      503,
      'Network matic is not available on this server: no RPC is configured for it',
    );
    const kept = await t.db
      .select({ id: requests.requestId })
      .from(requests)
      .where(inArray(requests.requestId, requestIds));
    expect(kept).toHaveLength(2);
  });

  it('answers approvals of the batch contract and one batch transaction under both names', async () => {
    const res = await post('/v2/payouts/batch', { requests: [item(), item({ amount: '2' })] });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([
      'ERC20ApprovalTransactions',
      'ERC20BatchPaymentTransaction',
      'batchPaymentTransaction',
      'metadata',
      'requestIds',
      'requests',
    ]);
    expect(body.ERC20ApprovalTransactions).toEqual([
      { data: expect.stringMatching(/^0x095ea7b3/), to: expect.any(String), value: 0 },
    ]);
    expect(body.batchPaymentTransaction.data).toMatch(/^0x92cddb91/);
    expect(body.ERC20BatchPaymentTransaction).toEqual(body.batchPaymentTransaction);
    // 0.31.0's `requests`: what each request of the batch is, as written, in the body's order.
    const written = await t.db
      .select()
      .from(requests)
      .where(inArray(requests.requestId, body.requestIds));
    const reference = (id: string) =>
      `0x${written.find((row) => row.requestId === id)?.paymentReference}`;
    expect(body.requests).toEqual(
      ['1', '2'].map((amount, i) => ({
        requestId: body.requestIds[i],
        paymentReference: reference(body.requestIds[i]),
        payee: wallet(1).address,
        amount,
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
      })),
    );
    // No payer named: nothing read, so what the wallet can do is unknown (0.31.0's nulls).
    expect(body.metadata).toMatchObject({
      hasEnoughBalance: true,
      hasEnoughGas: null,
      canMakePayment: null,
    });
  });

  it('takes requests or requestIds, never both, and at least one of them', async () => {
    const existing = await created();
    const both = await refused(
      () => post('/v2/payouts/batch', { requests: [item()], requestIds: [existing.requestId] }),
      400,
      'Validation failed',
    );
    expect(both.json().errors).toEqual([
      { field: 'requestIds', message: REQUESTS_XOR_IDS_MESSAGE },
    ]);
    const neither = await refused(
      () => post('/v2/payouts/batch', { payer: wallet(2).address }),
      400,
      'Validation failed',
    );
    expect(neither.json().errors).toEqual([{ field: 'requests', message: NO_REQUESTS_MESSAGE }]);
  });

  it(`pays at most ${MAX_BATCH_ITEMS} requests in one batch`, async () => {
    const many = Array.from({ length: MAX_BATCH_ITEMS + 1 }, () => item());
    await refused(() => post('/v2/payouts/batch', { requests: many }), 400, 'Validation failed');
    const most = await post('/v2/payouts/batch', {
      requests: many.slice(0, MAX_BATCH_ITEMS),
    });
    expect(most.statusCode, most.body).toBe(201);
    expect(most.json().requestIds).toHaveLength(MAX_BATCH_ITEMS);
  });

  it('refuses requests on two networks, and Tron, with the reference’s words', async () => {
    await refused(
      () =>
        post('/v2/payouts/batch', {
          requests: [
            item(),
            item({ invoiceCurrency: 'USDC-arbitrum-one', paymentCurrency: 'USDC-arbitrum-one' }),
          ],
        }),
      400,
      SAME_NETWORK_MESSAGE,
    );
    const tron = item({
      payee: evmToTron(wallet(1).address),
      invoiceCurrency: 'USDT-tron',
      paymentCurrency: 'USDT-tron',
    });
    await refused(() => post('/v2/payouts/batch', { requests: [tron] }), 400, TRON_BATCH_MESSAGE);
    await refused(
      () => post('/v2/payouts/batch', { requests: [item(), tron] }),
      400,
      TRON_BATCH_MESSAGE,
    );
  });

  it('names every bad item by its index, and writes none of the good ones', async () => {
    const res = await refused(
      () =>
        post('/v2/payouts/batch', {
          requests: [item(), item({ amount: '1.0000001' }), item({ payee: '0x1234' })],
        }),
      400,
      'Validation failed',
    );
    const errors = res.json().errors as { field: string }[];
    expect(errors.map((e) => e.field)).toEqual(['requests[1].amount', 'requests[2].payee']);
  });

  it('pays only the caller’s unpaid requests, each once', async () => {
    const mine = await created();
    const theirs = await created({}, apiKey(tenantB));
    await refused(
      () => post('/v2/payouts/batch', { requestIds: [mine.requestId, theirs.requestId] }),
      404,
      `Request ${theirs.requestId} not found`,
    );
    const twice = await refused(
      () => post('/v2/payouts/batch', { requestIds: [mine.requestId, mine.requestId] }),
      400,
      'Validation failed',
    );
    expect(twice.json().errors).toEqual([
      { field: 'requestIds', message: `lists ${mine.requestId} twice` },
    ]);
  });
});
