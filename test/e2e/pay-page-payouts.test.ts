import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screen, sends, text, texts } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import type { TestWalletSpec } from '../pay-page/wallet.ts';

/**
 * Hosted payout links on the pay page, in a real Chromium with an injected EIP-6963 wallet on
 * a local chain running the real Request contracts: the creator's wallet pays, any other
 * wallet is told so and asked for nothing, and a batch of payouts is paid in one go while the
 * links it merged show that they are no longer valid.
 */

let rig: PayPageRig;

beforeAll(async () => {
  rig = await startPayPageRig();
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

/** Sandbox wallets: recipients first, then one creator per test, then a stranger. */
const RECIPIENT = { single: 1, batch: [2, 3], refused: 4 } as const;
const CREATOR = { single: 6, refused: 7, batch: 8 } as const;
const STRANGER = 9;

const spec = (index: number): TestWalletSpec => ({
  name: 'Test Wallet',
  rdns: 'test.payreq.wallet',
  account: rig.wallet(index),
});

const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

describe('payout links on the hosted page', () => {
  it('is paid by its creator’s wallet, and the recipient gets exactly the amount', async () => {
    const token = await rig.payout({
      currency: 'USDC',
      amount: '12.5',
      payee: RECIPIENT.single,
      creator: CREATOR.single,
    });
    const recipient = rig.wallet(RECIPIENT.single).address;
    const creator = rig.wallet(CREATOR.single).address;
    const before = await rig.balance('USDC', recipient);
    const { page, wallets, context } = await rig.open(token, [spec(CREATOR.single)]);

    await screen(page, 'pending');
    expect(await text(page, 'h1')).toBe(`Send 12.5 USDC to ${short(recipient)}`);
    expect(await text(page, '[data-field="payout"]')).toBe(
      'Payout: only the wallet that created it can send it.',
    );
    expect(await text(page, '[data-field="payee"]')).toBe(recipient);
    expect(await text(page, '[data-field="creator"]')).toBe(creator);
    await rig.screenshot(page, 'payout-pending');

    await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
    await screen(page, 'completed');
    expect(await text(page, 'h1')).toBe('Paid 12.5 USDC');
    expect(sends(wallets[0])).toBe(2);
    expect(await rig.balance('USDC', recipient)).toBe(before + 12_500_000n);
    await context.close();
  });

  it('is refused to another wallet: the page says so and asks the wallet for no transaction', async () => {
    const token = await rig.payout({
      currency: 'USDC',
      amount: '3',
      payee: RECIPIENT.refused,
      creator: CREATOR.refused,
    });
    const recipient = rig.wallet(RECIPIENT.refused).address;
    const before = await rig.balance('USDC', recipient);
    const { page, wallets, context } = await rig.open(token, [spec(STRANGER)]);
    await screen(page, 'pending');
    await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
    await screen(page, 'pending');
    expect(await text(page, '[role="alert"]')).toBe(
      `Only the wallet that created this payout can send it: ${rig.wallet(CREATOR.refused).address}. This wallet is ${rig.wallet(STRANGER).address}. Connect that wallet, then try again.`,
    );
    await rig.screenshot(page, 'payout-refused');
    const methods = wallets[0]?.calls.map((c) => c.method) ?? [];
    expect(methods).toContain('eth_requestAccounts');
    expect(methods).not.toContain('eth_sendTransaction');
    expect(methods).not.toContain('wallet_switchEthereumChain');
    expect(wallets[0]?.sent).toEqual([]);
    // Checked before the calldata was asked for: the API was not even asked.
    expect(rig.asked(`${token}/pay?`)).toBe(0);
    expect(await rig.balance('USDC', recipient)).toBe(before);
    // The button is offered again: the creator can still connect.
    await page.getByRole('button', { name: 'Pay with Test Wallet' }).waitFor();
    await context.close();
  });

  it('pays a batch payout link of two payouts end to end; the merged links show their invalidated screen', async () => {
    const merged = [
      await rig.payout({
        currency: 'USDC',
        amount: '1.5',
        payee: RECIPIENT.batch[0],
        creator: CREATOR.batch,
      }),
      await rig.payout({
        currency: 'USDC',
        amount: '2.25',
        payee: RECIPIENT.batch[1],
        creator: CREATOR.batch,
      }),
    ];
    const token = await rig.batchPayout(merged);
    const recipients = RECIPIENT.batch.map((i) => rig.wallet(i).address);
    const before = await Promise.all(recipients.map((r) => rig.balance('USDC', r)));
    const { page, wallets, context } = await rig.open(token, [spec(CREATOR.batch)]);

    await screen(page, 'pending');
    expect(await text(page, 'h1')).toBe('Send 3.75 USDC to 2 recipients');
    expect(await text(page, '[data-field="payout"]')).toBe(
      'Batch payout: only the wallet that created it can send it.',
    );
    expect(await texts(page, '[data-field="amount"]', 2)).toEqual(['1.5 USDC', '2.25 USDC']);
    expect(await texts(page, '[data-field="payee"]', 2)).toEqual(recipients);
    expect(await text(page, '[data-field="total"]')).toBe('3.75 USDC');
    await rig.screenshot(page, 'batch-payout-pending');

    await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
    await screen(page, 'completed');
    expect(sends(wallets[0])).toBe(2);
    const after = await Promise.all(recipients.map((r) => rig.balance('USDC', r)));
    expect(after.map((a, i) => a - (before[i] ?? 0n))).toEqual([1_500_000n, 2_250_000n]);
    await context.close();

    for (const old of merged) {
      const opened = await rig.open(old, [spec(CREATOR.batch)]);
      await screen(opened.page, 'invalidated');
      expect(await text(opened.page, 'h1')).toBe('This payment link is no longer valid');
      expect(opened.wallets[0]?.calls ?? []).toEqual([]);
      await opened.context.close();
    }
  });
});
