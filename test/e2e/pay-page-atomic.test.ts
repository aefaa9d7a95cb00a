import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screen, sends } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import type { TestWallet, TestWalletSpec } from '../pay-page/wallet.ts';
import type { AtomicSupport } from '../pay-page/wallet-calls.ts';

/**
 * EIP-5792 on the hosted page, in a real Chromium against the local chain with the real
 * Request contracts: a wallet that runs batches atomically gets the approval and the payment
 * in one `wallet_sendCalls`, which the page follows with `wallet_getCallsStatus` until it is
 * confirmed; any other wallet gets them one at a time with `eth_sendTransaction`, in order.
 * Either way detection completes the link.
 */

let rig: PayPageRig;

beforeAll(async () => {
  rig = await startPayPageRig();
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

/** One active destination per wallet: the ETH link pays another payee than the USDC ones. */
const PAYEE = 1;
const ETH_PAYEE = 2;
const BASE_CHAIN_HEX = '0x2105';

const spec = (index: number, atomic?: AtomicSupport): TestWalletSpec => ({
  name: 'Test Wallet',
  rdns: 'test.payreq.wallet',
  account: rig.wallet(index),
  ...(atomic && { atomic }),
});

async function pay(page: Page): Promise<void> {
  await screen(page, 'pending');
  await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
  await screen(page, 'completed');
}

const asked = (wallet: TestWallet | undefined, method: string) =>
  wallet?.calls.filter((c) => c.method === method) ?? [];

interface Transaction {
  readonly to: string;
  readonly data: string;
  readonly value: string;
}

/** What `/pay` tells this payer to send now, as the page reads it before paying. */
async function transactionsFor(token: string, payer: string): Promise<Transaction[]> {
  const { status, body } = await rig.get(`/v2/secure-payments/${token}/pay?wallet=${payer}`);
  expect(status).toBe(200);
  return (body.transactions as Transaction[]).map(({ to, data, value }) => ({ to, data, value }));
}

/** The transaction that paid the link, as its completed answer names it. */
async function paidBy(token: string): Promise<unknown> {
  const { status, body } = await rig.get(`/v2/secure-payments/${token}`);
  expect(status).toBe(409);
  return (body.requestStatuses as { txHash: string }[])[0]?.txHash;
}

describe('sending a payment’s calls', () => {
  it.each([
    ['supported', 6],
    ['ready', 7],
    ['atomicBatch', 8],
  ] as const)(
    'sends approval and payment in one wallet_sendCalls to a wallet whose atomic batching is %s',
    async (atomic, payerIndex) => {
      const token = await rig.link([{ currency: 'USDC', amount: '4.2', payee: PAYEE }]);
      const payer = rig.wallet(payerIndex).address;
      const payee = rig.wallet(PAYEE).address;
      const expected = await transactionsFor(token, payer);
      expect(expected).toHaveLength(2); // the approval, then the payment
      const before = await rig.balance('USDC', payee);
      const { page, wallets, context } = await rig.open(token, [spec(payerIndex, atomic)]);
      const [wallet] = wallets;
      await pay(page);

      expect(asked(wallet, 'wallet_getCapabilities').map((c) => c.params)).toEqual([
        [payer, [BASE_CHAIN_HEX]],
      ]);
      expect(asked(wallet, 'wallet_sendCalls').map((c) => c.params)).toEqual([
        [
          {
            version: '2.0.0',
            chainId: BASE_CHAIN_HEX,
            from: payer,
            atomicRequired: true,
            calls: expected,
          },
        ],
      ]);
      expect(sends(wallet)).toBe(0);
      // Pending at first: the page asked again until the wallet said confirmed.
      expect(asked(wallet, 'wallet_getCallsStatus').length).toBeGreaterThanOrEqual(2);
      const [batch] = wallet?.batches ?? [];
      expect(batch?.status).toBe(200);
      expect(batch?.hashes).toHaveLength(2);
      expect(await rig.balance('USDC', payee)).toBe(before + 4_200_000n);
      expect(await paidBy(token)).toBe(batch?.hashes[1]);
      await context.close();
    },
  );

  it.each([
    ['has no EIP-5792 methods', undefined, 9],
    ['says atomic batching is unsupported', 'unsupported', 10],
  ] as const)(
    'sends approval, then payment, with eth_sendTransaction to a wallet that %s',
    async (_, atomic, payerIndex) => {
      const token = await rig.link([{ currency: 'USDC', amount: '1.75', payee: PAYEE }]);
      const payer = rig.wallet(payerIndex).address;
      const payee = rig.wallet(PAYEE).address;
      const [approval, payment] = await transactionsFor(token, payer);
      const before = await rig.balance('USDC', payee);
      const { page, wallets, context } = await rig.open(token, [spec(payerIndex, atomic)]);
      const [wallet] = wallets;
      await pay(page);

      expect(asked(wallet, 'wallet_getCapabilities')).toHaveLength(1);
      expect(asked(wallet, 'wallet_sendCalls')).toHaveLength(0);
      const sent = asked(wallet, 'eth_sendTransaction').map(
        (c) => (c.params as [{ to: string; data: string }])[0],
      );
      expect(sent.map(({ to, data }) => ({ to, data }))).toEqual([
        { to: approval?.to, data: approval?.data },
        { to: payment?.to, data: payment?.data },
      ]);
      expect(await rig.balance('USDC', payee)).toBe(before + 1_750_000n);
      expect(await paidBy(token)).toBe(wallet?.sent[1]);
      await context.close();
    },
  );

  it('sends a payment of one call with eth_sendTransaction, without asking for batching', async () => {
    const token = await rig.link([{ currency: 'ETH', amount: '0.01', payee: ETH_PAYEE }]);
    const { page, wallets, context } = await rig.open(token, [spec(11, 'supported')]);
    const [wallet] = wallets;
    await pay(page);
    expect(asked(wallet, 'wallet_getCapabilities')).toHaveLength(0);
    expect(asked(wallet, 'wallet_sendCalls')).toHaveLength(0);
    expect(sends(wallet)).toBe(1);
    await context.close();
  });

  it('says the payer declined a batch, and sends it when the payer tries again', async () => {
    const token = await rig.link([{ currency: 'USDC', amount: '0.5', payee: PAYEE }]);
    const { page, wallets, context } = await rig.open(token, [spec(12, 'supported')]);
    const [wallet] = wallets;
    if (!wallet) throw new Error('no wallet');
    wallet.declineNext = 1;
    await screen(page, 'pending');
    await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
    await screen(page, 'pending');
    expect((await page.locator('[role="alert"]').textContent())?.trim()).toBe(
      'You declined in your wallet, so nothing was sent. You can try again.',
    );
    expect(wallet.sent).toHaveLength(0);
    await pay(page);
    expect(asked(wallet, 'wallet_sendCalls')).toHaveLength(2);
    expect(wallet.batches).toHaveLength(1);
    expect(sends(wallet)).toBe(0);
    await context.close();
  });
});
