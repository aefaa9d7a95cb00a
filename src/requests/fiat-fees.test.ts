import { type Address, custom, decodeFunctionData, getAddress, type Hex, parseAbi } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { accountOf, sendAll } from '../../test/chain.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { batchPaymentsAbi, erc20ConversionProxyAbi } from '../payments/abis.ts';
import type { EvmTransaction } from '../payments/transactions.ts';
import { type LocalChain, startLocalChain } from '../sandbox/chain.ts';

/**
 * Platform fees on fiat requests, in the conversion's 8 decimals rather than the fiat's cents:
 * 0.5 % of 5 USD is 0.025 USD (cut to cents it was 0.02). `/routes` says so, `/pay` and a batch
 * payout carry 2,500,000 (8 decimals) in their calldata, and on the sandbox chain's real
 * conversion proxy (1 USD = 1 USDC) the fee address receives 0.025 USDC.
 */

const TOKEN_ABI = parseAbi(['function balanceOf(address) view returns (uint256)']);
const FEE_ADDRESS = getAddress(`0x${'fe'.repeat(20)}`);
const FEE = { feePercentage: '0.5', feeAddress: FEE_ADDRESS };

let chain: LocalChain;
let t: TestApp;
let tenant: Tenant;
let snapshot: Hex;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 31337, walletCount: 6 });
  t = await createTestApp({
    env: { SANDBOX: 'true' },
    transports: { sandbox: custom(chain.provider, { retryCount: 0 }) },
  });
  tenant = await createTenant(t.db);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await chain?.close();
});
beforeEach(async () => {
  snapshot = await chain.snapshot();
});
afterEach(async () => {
  await chain.revert(snapshot);
});

const headers = () => ({ 'x-api-key': tenant.apiKey });
const payee = () => accountOf(chain, 1).address;
const payer = () => accountOf(chain, 3);

async function usdc(owner: Address): Promise<bigint> {
  return chain.client.readContract({
    address: t.chains.currency('USDC-sandbox')?.address as Address,
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });
}

/** A 5 USD request paid in USDC on the sandbox. */
async function fiveDollars(): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: headers(),
    payload: {
      amount: '5',
      invoiceCurrency: 'USD',
      paymentCurrency: 'USDC-sandbox',
      payee: payee(),
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().requestId;
}

function get(url: string, query: Record<string, string>) {
  return t.app.inject({
    method: 'GET',
    url: `${url}?${new URLSearchParams(query)}`,
    headers: headers(),
  });
}

describe('a 0.5 % platform fee on a 5 USD request', () => {
  it('is 0.025 on /routes', async () => {
    const requestId = await fiveDollars();
    const res = await get(`/v2/request/${requestId}/routes`, { wallet: payer().address, ...FEE });
    expect(res.statusCode, res.body).toBe(200);
    const [route] = res.json().routes;
    expect(route).toMatchObject({ fee: 0.025, feeInUSD: 0.025 });
    expect(route.feeBreakdown).toEqual([
      expect.objectContaining({ type: 'platform', amount: '0.025', amountInUSD: '0.025' }),
    ]);
  });

  it('is 2,500,000 in /pay’s calldata (8 decimals), and the fee address gets 0.025 USDC', async () => {
    const requestId = await fiveDollars();
    const res = await get(`/v2/request/${requestId}/pay`, { wallet: payer().address, ...FEE });
    expect(res.statusCode, res.body).toBe(200);
    const transactions: { to: Address; data: Hex; value: { hex: Hex } }[] = res.json().transactions;
    const payment = transactions.at(-1);
    if (!payment) throw new Error('no payment transaction');
    const { args } = decodeFunctionData({ abi: erc20ConversionProxyAbi, data: payment.data });
    expect(args?.[1]).toBe(500_000_000n);
    expect(args?.[4]).toBe(2_500_000n);
    expect(args?.[5]).toBe(FEE_ADDRESS);

    const [feeBefore, payeeBefore] = [await usdc(FEE_ADDRESS), await usdc(payee())];
    const sent: EvmTransaction[] = transactions.map((tx) => ({
      to: tx.to,
      data: tx.data,
      value: tx.value.hex,
      chainId: chain.chainId,
    }));
    await sendAll(chain, payer(), sent);
    expect((await usdc(FEE_ADDRESS)) - feeBefore).toBe(25_000n);
    expect((await usdc(payee())) - payeeBefore).toBe(5_000_000n);
  });

  it('is 2,500,000 in a batch payout’s calldata too', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/payouts/batch',
      headers: headers(),
      payload: {
        requests: [
          { amount: '5', invoiceCurrency: 'USD', paymentCurrency: 'USDC-sandbox', payee: payee() },
        ],
        ...FEE,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { args } = decodeFunctionData({
      abi: batchPaymentsAbi,
      data: res.json().batchPaymentTransaction.data,
    });
    const details = args?.[0]?.flatMap((meta) => meta.requestDetails) ?? [];
    expect(details.map((detail) => [detail.requestAmount, detail.feeAmount])).toEqual([
      [500_000_000n, 2_500_000n],
    ]);
  });
});
