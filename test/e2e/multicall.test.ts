import { type Address, getAddress, type Hex, keccak256, parseAbi, toHex } from 'viem';
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
 * Multicall payouts end to end on a local chain running the real Request contracts: payout
 * links are created over HTTP, grouped into one multicall parent, its Variant C transactions
 * are sent from the creator's wallet, every recipient's balance rises by exactly its amount,
 * detection confirms every child once by webhook, and the parent follows its children.
 */

const TOKEN_ABI = parseAbi(['function balanceOf(address) view returns (uint256)']);
const CHILDREN = 150;

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let indexer: Indexer;
let dispatcher: Dispatcher;

beforeAll(async () => {
  local = await standIn('base', { walletCount: 8 });
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

type Symbol = 'USDC' | 'USDT' | 'DAI' | 'ETH';
const DECIMALS: Record<Symbol, number> = { USDC: 6, USDT: 6, DAI: 18, ETH: 18 };

/** A recipient no test wallet holds, so its balance moves only by this test's payments. */
function recipient(seed: string): Address {
  return getAddress(keccak256(toHex(`multicall recipient ${seed}`)).slice(0, 42));
}

async function balance(symbol: Symbol, owner: Address): Promise<bigint> {
  const a = local.chain.addresses;
  if (symbol === 'ETH') return local.chain.client.getBalance({ address: owner });
  const token = getAddress({ USDC: a.usdc, USDT: a.usdt, DAI: a.dai }[symbol]);
  return local.chain.client.readContract({
    address: token,
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });
}

async function call(method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) {
  return t.app.inject({ method, url, headers: headers(), ...(payload && { payload }) });
}

interface Child {
  readonly token: string;
  readonly requestId: string;
  readonly symbol: Symbol;
  readonly payee: Address;
  readonly base: bigint;
}

/** A payout link of `base` units of `symbol` from `creator` to a fresh recipient. */
async function payoutLink(creator: Address, symbol: Symbol, base: bigint, seed: string) {
  const payee = recipient(seed);
  const digits = base.toString().padStart(DECIMALS[symbol] + 1, '0');
  const amount = `${digits.slice(0, -DECIMALS[symbol])}.${digits.slice(-DECIMALS[symbol])}`;
  const res = await call('POST', '/v2/secure-payments/payouts', {
    recipient: payee,
    creatorWalletAddress: creator,
    network: 'base',
    currency: `${symbol}-base`,
    amount,
  });
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json() as { token: string; requestIds: string[] };
  return { token: body.token, requestId: body.requestIds[0] as string, symbol, payee, base };
}

/** Reads the chain, sends the outbox, and returns the `payment.confirmed` bodies received. */
async function confirmations(requestIds: readonly string[]): Promise<Record<string, unknown>[]> {
  await indexer.tick();
  const deadline = Date.now() + 60_000;
  for (;;) {
    await dispatcher.runOnce();
    const confirmed = receiver.received
      .map((r) => r.body)
      .filter((b) => b.event === 'payment.confirmed' && requestIds.includes(String(b.requestId)));
    if (confirmed.length >= requestIds.length || Date.now() > deadline) return confirmed;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function sendable(tx: EvmTransaction): EvmTransaction {
  return { to: tx.to, data: tx.data as Hex, value: tx.value, chainId: tx.chainId };
}

describe('a multicall payout on chain', () => {
  it(`pays ${CHILDREN} children in one batch transaction, and confirms each child once`, async () => {
    const creator = wallet(6).address;
    const children: Child[] = [];
    for (let i = 0; i < CHILDREN; i++) {
      // 6- and 18-decimal tokens, the no-return token and the native currency, interleaved.
      const symbol: Symbol =
        i % 30 === 29 ? 'ETH' : i % 10 === 3 ? 'USDT' : i % 5 === 1 ? 'DAI' : 'USDC';
      const base = symbol === 'DAI' ? 10n ** 15n * BigInt(i + 1) + 7n : BigInt(1_000 * (i + 1) + i);
      children.push(await payoutLink(creator, symbol, base, `big ${i}`));
    }
    const created = await call('POST', '/v2/secure-payments/multicall-payouts', {
      childTokens: children.map((child) => child.token),
    });
    expect(created.statusCode, created.body).toBe(201);
    const token = created.json().token as string;
    expect(created.json().items).toHaveLength(CHILDREN);

    const pay = await call('GET', `/v2/secure-payments/${token}/pay?wallet=${creator}`);
    expect(pay.statusCode, pay.body).toBe(200);
    const body = pay.json();
    expect(body.metadata).toMatchObject({
      childCount: CHILDREN,
      executableLegCount: CHILDREN,
      approvalTransactionsCount: 3,
      hasEnoughBalance: true,
      hasEnoughGas: true,
    });
    expect(body.batchPaymentTransaction.to).toBe(getAddress(local.chain.addresses.batchPayments));

    const before = await Promise.all(children.map((c) => balance(c.symbol, c.payee)));
    await sendAll(local.chain, wallet(6), body.transactions.map(sendable));
    const after = await Promise.all(children.map((c) => balance(c.symbol, c.payee)));
    expect(after.map((a, i) => a - (before[i] ?? 0n))).toEqual(children.map((c) => c.base));

    const requestIds = children.map((c) => c.requestId);
    const confirmed = await confirmations(requestIds);
    expect(confirmed.map((c) => c.requestId).sort()).toEqual([...requestIds].sort());
    for (const c of confirmed) expect(c.payerAddress).toBe(creator);

    const view = await call('GET', `/v2/secure-payments/multicall-payouts/${token}`);
    expect(view.json()).toMatchObject({ status: 'completed', canExecute: false });
    expect(
      view.json().children.every((c: { blockReason: string }) => c.blockReason === 'already_paid'),
    ).toBe(true);
    const again = await call('GET', `/v2/secure-payments/${token}/pay?wallet=${creator}`);
    expect(again.statusCode).toBe(409);
    const child = await call('GET', `/v2/secure-payments/${children[0]?.token}`);
    expect(child.statusCode).toBe(409);
  }, 180_000);

  it('pays only what is left after a child was paid alone, partially settled in between', async () => {
    const creator = wallet(7).address;
    const children = [
      await payoutLink(creator, 'USDC', 1_250_000n, 'alone 0'),
      await payoutLink(creator, 'USDC', 2_000_000n, 'alone 1'),
      await payoutLink(creator, 'DAI', 3n * 10n ** 18n, 'alone 2'),
    ];
    const created = await call('POST', '/v2/secure-payments/multicall-payouts', {
      childTokens: children.map((child) => child.token),
    });
    expect(created.statusCode, created.body).toBe(201);
    const token = created.json().token as string;

    // The second child, paid through its own link.
    const [, alone] = children;
    if (!alone) throw new Error('no child');
    const single = await call('GET', `/v2/secure-payments/${alone.token}/pay?wallet=${creator}`);
    expect(single.statusCode, single.body).toBe(200);
    await sendAll(local.chain, wallet(7), single.json().transactions.map(sendable));
    await confirmations([alone.requestId]);
    const partial = await call('GET', `/v2/secure-payments/multicall-payouts/${token}`);
    expect(partial.json()).toMatchObject({
      status: 'partially_settled',
      canExecute: true,
      children: [
        { executable: true },
        { executable: false, blockReason: 'already_paid' },
        { executable: true },
      ],
    });

    const pay = await call('GET', `/v2/secure-payments/${token}/pay?wallet=${creator}`);
    expect(pay.statusCode, pay.body).toBe(200);
    expect(pay.json().requestIds).toEqual([children[0]?.requestId, children[2]?.requestId]);
    const before = await Promise.all(children.map((c) => balance(c.symbol, c.payee)));
    await sendAll(local.chain, wallet(7), pay.json().transactions.map(sendable));
    const after = await Promise.all(children.map((c) => balance(c.symbol, c.payee)));
    expect(after.map((a, i) => a - (before[i] ?? 0n))).toEqual([1_250_000n, 0n, 3n * 10n ** 18n]);
    const confirmed = await confirmations(children.map((c) => c.requestId));
    // Each child confirmed exactly once, the one paid alone included.
    expect(confirmed.map((c) => c.requestId).sort()).toEqual(
      children.map((c) => c.requestId).sort(),
    );
    const done = await call('GET', `/v2/secure-payments/multicall-payouts/${token}`);
    expect(done.json()).toMatchObject({ status: 'completed' });
  }, 120_000);
});
