import { count, eq } from 'drizzle-orm';
import { type Address, decodeFunctionData, getAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { accountOf, sendAll, usdcBalance } from '../../test/chain.ts';
import { apiKey, local, setupRequestsApp, t, tenantA, wallet } from '../../test/requests.ts';
import { requests } from '../db/schema.ts';
import { batchPaymentsAbi } from '../payments/abis.ts';

/**
 * `POST /v2/payouts/batch` with fee fields inside each item of `requests[]`, as request-commerce
 * sends them (empty strings when an item has no fee): each item's fee is its own, an item
 * without one takes the body's, and the batch transaction carries exactly those amounts to the
 * one fee address, paid on the local chain.
 */

setupRequestsApp();

const FEE_ADDRESS = getAddress(`0x${'fe'.repeat(20)}`);

const post = (payload: object) =>
  t.app.inject({
    method: 'POST',
    url: '/v2/payouts/batch',
    headers: apiKey(tenantA),
    payload,
  });

/** An item as request-commerce writes it: fee fields always present, empty when none. */
const item = (payee: number, amount: string, feePercentage = '', feeAddress = '') => ({
  payee: wallet(payee).address,
  amount,
  invoiceCurrency: 'USDC-base',
  paymentCurrency: 'USDC-base',
  feePercentage,
  feeAddress,
});

/** Each request's fee amount and the batch's fee address, read from the calldata. */
function feesOf(data: Hex): { fees: bigint[]; feeAddress: Address } {
  const { args } = decodeFunctionData({ abi: batchPaymentsAbi, data });
  const [metaDetails, , feeAddress] = args ?? [];
  if (!metaDetails || !feeAddress) throw new Error('not a batchPayments call');
  return {
    fees: metaDetails.flatMap((meta) => meta.requestDetails.map((detail) => detail.feeAmount)),
    feeAddress,
  };
}

async function requestCount(): Promise<number> {
  const [row] = await t.db
    .select({ n: count() })
    .from(requests)
    .where(eq(requests.accountId, tenantA.accountId));
  return row?.n ?? 0;
}

describe('POST /v2/payouts/batch: fee fields in each item', () => {
  it('takes empty fee fields as no fee', async () => {
    const res = await post({ requests: [item(1, '1'), item(2, '2')] });
    expect(res.statusCode, res.body).toBe(201);
    expect(feesOf(res.json().batchPaymentTransaction.data).fees).toEqual([0n, 0n]);
  });

  it('charges each item its own fee, the body’s where the item has none, and pays them on chain', async () => {
    const payer = accountOf(local.chain, 0);
    const res = await post({
      requests: [
        item(1, '10', '1', FEE_ADDRESS),
        item(2, '20', '0.5', FEE_ADDRESS.toLowerCase()),
        item(3, '30'),
      ],
      feePercentage: '2',
      feeAddress: FEE_ADDRESS,
      payer: payer.address,
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    // 1 % of 10, 0.5 % of 20, the body's 2 % of 30 (USDC, 6 decimals).
    expect(feesOf(body.batchPaymentTransaction.data)).toEqual({
      fees: [100_000n, 100_000n, 600_000n],
      feeAddress: FEE_ADDRESS,
    });
    const before = await usdcBalance(local.chain, FEE_ADDRESS);
    const recipientBefore = await usdcBalance(local.chain, wallet(3).address);
    await sendAll(local.chain, payer, [
      ...body.ERC20ApprovalTransactions.map((tx: { to: Address; data: Hex }) => ({
        ...tx,
        value: '0x0' as const,
        chainId: local.chain.chainId,
      })),
      {
        to: body.batchPaymentTransaction.to,
        data: body.batchPaymentTransaction.data,
        value: body.batchPaymentTransaction.value.hex,
        chainId: local.chain.chainId,
      },
    ]);
    expect((await usdcBalance(local.chain, FEE_ADDRESS)) - before).toBe(800_000n);
    expect((await usdcBalance(local.chain, wallet(3).address)) - recipientBefore).toBe(30_000_000n);
  });

  it('names the item whose fee is wrong, writing nothing', async () => {
    const before = await requestCount();
    const res = await post({ requests: [item(1, '1'), item(2, '1', '1')] });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([
      {
        field: 'requests[1].feeAddress',
        message: 'feePercentage and feeAddress must be sent together',
      },
    ]);
    expect(await requestCount()).toBe(before);
  });

  it('refuses items whose fees go to different addresses (one fee address per batch)', async () => {
    const before = await requestCount();
    const res = await post({
      requests: [item(1, '1', '1', FEE_ADDRESS), item(2, '1', '1', wallet(4).address)],
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().code).toBe('batch_fee_addresses_differ');
    expect(await requestCount()).toBe(before);
  });
});
