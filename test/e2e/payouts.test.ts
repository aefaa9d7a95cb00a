import { type Address, getAddress, type Hex, maxUint256, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Indexer } from '../../src/detection/indexer.ts';
import type { EvmTransaction } from '../../src/payments/transactions.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * Payouts end to end: the platform asks for a payout (or a batch of them) over HTTP, the
 * payer's wallet sends every transaction returned to a local chain running the real Request
 * contracts, each recipient's balance rises by exactly its amount, and detection confirms each
 * request once, by webhook.
 */

const TOKEN_ABI = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function approve(address,uint256) returns (bool)',
]);

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let indexer: Indexer;
let dispatcher: Dispatcher;

/** Sandbox wallets: recipients first, then one payer per test so allowances do not leak. */
const RECIPIENTS = [1, 2, 3, 4, 5] as const;
const WALLETS = 16;

beforeAll(async () => {
  local = await standIn('base', { walletCount: WALLETS });
  t = await createTestApp({
    env: { ...local.env, ALLOW_LOCAL_WEBHOOKS: 'true' },
    transports: local.transports,
  });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  const hook = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: headers(),
    payload: { url: receiver.url },
  });
  expect(hook.statusCode, hook.body).toBe(201);
  receiver.verifyWith(hook.json().secret);
  indexer = testIndexer(t, { network: 'base', confirmations: 0 });
  dispatcher = testDispatcher(t);
}, 120_000);
afterAll(async () => {
  await indexer?.stop();
  await receiver?.close();
  await t?.close();
  await local?.chain.close();
});

const headers = () => ({ 'x-api-key': tenant.apiKey });
const wallet = (index: number) => accountOf(local.chain, index);
const recipient = (i: number) => wallet(RECIPIENTS[i] ?? 1).address;

type Symbol = 'USDC' | 'USDT' | 'DAI' | 'ETH';

function tokenOf(symbol: Symbol): Address | null {
  const a = local.chain.addresses;
  return symbol === 'ETH' ? null : getAddress({ USDC: a.usdc, USDT: a.usdt, DAI: a.dai }[symbol]);
}

async function balance(symbol: Symbol, owner: Address): Promise<bigint> {
  const token = tokenOf(symbol);
  if (!token) return local.chain.client.getBalance({ address: owner });
  return local.chain.client.readContract({
    address: token,
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });
}

/** The reference's transaction shape, as a wallet sends it. */
function sendable(tx: { data: Hex; to: Address; value: unknown }): EvmTransaction {
  const value =
    typeof tx.value === 'number' ? BigInt(tx.value) : BigInt((tx.value as { hex: Hex }).hex);
  return { to: tx.to, data: tx.data, value: `0x${value.toString(16)}`, chainId: 8453 };
}

async function post(url: string, payload: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url, headers: headers(), payload });
}

/** Reads the chain, sends the outbox, and returns the `payment.confirmed` bodies received. */
async function confirmations(requestIds: readonly string[]): Promise<Record<string, unknown>[]> {
  await indexer.tick();
  await dispatcher.runOnce();
  const deadline = Date.now() + 10_000;
  for (;;) {
    const confirmed = receiver.received
      .map((r) => r.body)
      .filter((b) => b.event === 'payment.confirmed' && requestIds.includes(String(b.requestId)));
    if (confirmed.length >= requestIds.length || Date.now() > deadline) return confirmed;
    await dispatcher.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('POST /v2/payouts', () => {
  const cases: { symbol: Symbol; amount: string; base: bigint; payer: number }[] = [
    { symbol: 'USDC', amount: '12.5', base: 12_500_000n, payer: 6 },
    { symbol: 'DAI', amount: '0.000000000000000001', base: 1n, payer: 7 },
    { symbol: 'USDT', amount: '3.25', base: 3_250_000n, payer: 8 },
    { symbol: 'ETH', amount: '0.125', base: 125_000_000_000_000_000n, payer: 9 },
  ];
  for (const { symbol, amount, base, payer } of cases) {
    it(`pays ${amount} ${symbol} to the payee from the payer's wallet, and detection confirms it`, async () => {
      const payee = recipient(0);
      const before = await balance(symbol, payee);
      const res = await post('/v2/payouts', {
        payee,
        amount,
        invoiceCurrency: `${symbol}-base`,
        paymentCurrency: `${symbol}-base`,
        payerWallet: wallet(payer).address,
        reference: `payout-${symbol}`,
      });
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json();
      expect(body).toMatchObject({
        requestId: expect.stringMatching(/^01[0-9a-f]{64}$/),
        paymentReference: expect.stringMatching(/^0x[0-9a-f]{16}$/),
        metadata: {
          stepsRequired: symbol === 'ETH' ? 1 : 2,
          needsApproval: symbol !== 'ETH',
          hasEnoughBalance: true,
          hasEnoughGas: true,
        },
      });
      await sendAll(local.chain, wallet(payer), body.transactions.map(sendable));
      expect(await balance(symbol, payee)).toBe(before + base);

      const [confirmed] = await confirmations([body.requestId]);
      expect(confirmed).toMatchObject({
        requestId: body.requestId,
        paymentReference: body.paymentReference,
        payerAddress: wallet(payer).address,
      });
      const status = await t.app.inject({
        method: 'GET',
        url: `/v2/request/${body.requestId}`,
        headers: headers(),
      });
      expect(status.json()).toMatchObject({
        status: 'paid',
        hasBeenPaid: true,
        payer: wallet(payer).address,
        reference: `payout-${symbol}`,
      });
    });
  }

  it('leaves the approval out when the payer already allows the proxy, and charges the fee', async () => {
    const payer = wallet(10);
    const proxy = t.chains.contracts('base').erc20FeeProxy as Address;
    await sendAll(local.chain, payer, [
      sendable({
        to: tokenOf('USDC') as Address,
        data: (await import('viem')).encodeFunctionData({
          abi: TOKEN_ABI,
          functionName: 'approve',
          args: [proxy, maxUint256],
        }),
        value: 0,
      }),
    ]);
    const payee = recipient(1);
    const feeAddress = recipient(2);
    const before = await Promise.all([balance('USDC', payee), balance('USDC', feeAddress)]);
    const res = await post('/v2/payouts', {
      payee,
      amount: '100',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payer: payer.address,
      feePercentage: '1.5',
      feeAddress,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().metadata).toMatchObject({ stepsRequired: 1, needsApproval: false });
    await sendAll(local.chain, payer, res.json().transactions.map(sendable));
    expect(await balance('USDC', payee)).toBe((before[0] ?? 0n) + 100_000_000n);
    expect(await balance('USDC', feeAddress)).toBe((before[1] ?? 0n) + 1_500_000n);
  });
});

describe('POST /v2/payouts/batch', () => {
  it('pays ERC20s of three kinds and the native currency in one batch transaction after the approvals', async () => {
    const payer = wallet(11);
    const items: { symbol: Symbol; amount: string; base: bigint }[] = [
      { symbol: 'USDC', amount: '1.5', base: 1_500_000n },
      { symbol: 'DAI', amount: '2.000000000000000003', base: 2_000_000_000_000_000_003n },
      { symbol: 'USDT', amount: '0.000001', base: 1n },
      { symbol: 'ETH', amount: '0.01', base: 10_000_000_000_000_000n },
      { symbol: 'USDC', amount: '4', base: 4_000_000n },
    ];
    const payees = items.map((_, i) => recipient(i));
    const before = await Promise.all(
      items.map((item, i) => balance(item.symbol, payees[i] as Address)),
    );
    const res = await post('/v2/payouts/batch', {
      requests: items.map((item, i) => ({
        payee: payees[i],
        amount: item.amount,
        invoiceCurrency: `${item.symbol}-base`,
        paymentCurrency: `${item.symbol}-base`,
      })),
      payer: payer.address,
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    const batchContract = getAddress(local.chain.addresses.batchPayments);
    // One approval per token, of the batch contract (not the fee proxy).
    expect(body.ERC20ApprovalTransactions).toHaveLength(3);
    for (const approval of body.ERC20ApprovalTransactions) {
      expect(approval.value).toBe(0);
      expect(approval.data.toLowerCase()).toContain(batchContract.slice(2).toLowerCase());
    }
    expect(body.batchPaymentTransaction.to).toBe(batchContract);
    expect(body.batchPaymentTransaction.value).toEqual({
      type: 'BigNumber',
      hex: '0x2386f26fc10000',
    });
    // The reference's name for the same transaction; never a second one to send.
    expect(body.ERC20BatchPaymentTransaction).toEqual(body.batchPaymentTransaction);
    expect(body.ETHBatchPaymentTransaction).toBeUndefined();
    expect(body.requestIds).toHaveLength(5);
    expect(body.metadata).toMatchObject({ hasEnoughBalance: true, hasEnoughGas: true });

    await sendAll(local.chain, payer, [
      ...body.ERC20ApprovalTransactions.map(sendable),
      sendable(body.batchPaymentTransaction),
    ]);
    const after = await Promise.all(
      items.map((item, i) => balance(item.symbol, payees[i] as Address)),
    );
    expect(after.map((a, i) => a - (before[i] ?? 0n))).toEqual(items.map((item) => item.base));

    // One confirmation per request, each naming the payer.
    const confirmed = await confirmations(body.requestIds);
    expect(confirmed.map((c) => c.requestId).sort()).toEqual([...body.requestIds].sort());
    for (const c of confirmed) expect(c.payerAddress).toBe(payer.address);
  });

  it('pays existing requests by id, only the native currency, under the reference’s ETH name', async () => {
    const payer = wallet(12);
    const ids: string[] = [];
    for (const [i, amount] of ['0.02', '0.03'].entries()) {
      const made = await post('/v2/request', {
        payee: recipient(i),
        amount,
        invoiceCurrency: 'ETH-base',
        paymentCurrency: 'ETH-base',
      });
      expect(made.statusCode, made.body).toBe(201);
      ids.push(made.json().requestId);
    }
    const before = await Promise.all([balance('ETH', recipient(0)), balance('ETH', recipient(1))]);
    const res = await post('/v2/payouts/batch', { requestIds: ids, payer: payer.address });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.ERC20ApprovalTransactions).toEqual([]);
    expect(body.ETHBatchPaymentTransaction).toEqual(body.batchPaymentTransaction);
    expect(body.ERC20BatchPaymentTransaction).toBeUndefined();
    expect(body.requestIds).toEqual(ids);
    await sendAll(local.chain, payer, [sendable(body.batchPaymentTransaction)]);
    expect(await balance('ETH', recipient(0))).toBe((before[0] ?? 0n) + 20_000_000_000_000_000n);
    expect(await balance('ETH', recipient(1))).toBe((before[1] ?? 0n) + 30_000_000_000_000_000n);

    expect(await confirmations(ids)).toHaveLength(2);
    // Paid now: a second batch of them is refused.
    const again = await post('/v2/payouts/batch', { requestIds: ids });
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toBe(`Request ${ids[0]} has already been paid`);
  });
});
