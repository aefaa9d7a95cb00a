import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securePayments } from '../../src/db/schema.ts';
import { accessibilityProblems, screen, sends, text, texts } from '../pay-page/page.ts';
import { type LinkItem, type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import type { TestWalletSpec } from '../pay-page/wallet.ts';

/**
 * Multicall payouts on the pay page, in a real Chromium with an injected EIP-6963 wallet on a
 * local chain running the real Request contracts: the creator sees every recipient, what each
 * child still wants and the totals per currency, and sends them in one batch transaction
 * after the approvals; a child paid alone before (or blocked) is shown so and left out; any
 * other wallet is told so and asked for nothing.
 */

const PAY_WITHIN_MS = 120_000;
const PHONE = { width: 375, height: 812 };

let rig: PayPageRig;

beforeAll(async () => {
  rig = await startPayPageRig();
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

/** Sandbox wallets: recipients first, then one creator per test, then a stranger. */
const RECIPIENT = { all: [1, 2, 3], some: [4, 5, 6, 7], refused: [8, 9] } as const;
const CREATOR = { all: 10, some: 11, refused: 12 } as const;
const STRANGER = 13;

const spec = (index: number): TestWalletSpec => ({
  name: 'Test Wallet',
  rdns: 'test.payreq.wallet',
  account: rig.wallet(index),
});

const addresses = (indexes: readonly number[]) => indexes.map((i) => rig.wallet(i).address);

/** One payout link per item, all created by wallet `creator`, in order. */
async function payouts(items: readonly LinkItem[], creator: number): Promise<string[]> {
  const tokens: string[] = [];
  for (const item of items) tokens.push(await rig.payout({ ...item, creator }));
  return tokens;
}

/** Each item's payee's balance in the item's currency. */
function balances(items: readonly LinkItem[]): Promise<bigint[]> {
  return Promise.all(
    items.map((item) => rig.balance(item.currency, rig.wallet(item.payee).address)),
  );
}

describe('multicall payout links on the hosted page', () => {
  it(
    'is paid end to end by its creator: every recipient gets exactly its amount, and the children and the parent complete',
    async () => {
      const [r1, r2, r3] = RECIPIENT.all;
      const items: LinkItem[] = [
        { currency: 'USDC', amount: '1.5', payee: r1 },
        { currency: 'USDC', amount: '2.25', payee: r2 },
        { currency: 'DAI', amount: '0.75', payee: r3 },
      ];
      const children = await payouts(items, CREATOR.all);
      const token = await rig.multicall(children);
      const recipients = addresses(RECIPIENT.all);
      const before = await balances(items);
      const { page, wallets, context } = await rig.open(token, [spec(CREATOR.all)], PHONE);

      await screen(page, 'pending');
      expect(await text(page, 'h1')).toBe('Send 3.75 USDC and 0.75 DAI to 3 recipients');
      expect(await text(page, '[data-field="payout"]')).toBe(
        'Multicall payout: only the wallet that created it can send it.',
      );
      expect(await text(page, '[data-field="network"]')).toBe('Base');
      expect(await texts(page, '[data-field="amount"]', 3)).toEqual([
        '1.5 USDC',
        '2.25 USDC',
        '0.75 DAI',
      ]);
      expect(await texts(page, '[data-field="payee"]', 3)).toEqual(recipients);
      expect(await texts(page, '[data-field="state"]', 3)).toEqual([
        'To send',
        'To send',
        'To send',
      ]);
      expect(await texts(page, '[data-field="total"]', 2)).toEqual(['3.75 USDC', '0.75 DAI']);
      expect(await text(page, '[data-field="creator"]')).toBe(rig.wallet(CREATOR.all).address);
      await page.getByRole('button', { name: 'Pay with Test Wallet' }).waitFor();
      // Fine on a phone: nothing wider than the screen, nothing axe calls serious.
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(PHONE.width);
      expect(await accessibilityProblems(page)).toEqual([]);
      await rig.screenshot(page, 'multicall-pending');

      await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
      await screen(page, 'completed');
      // Two currencies: the receipt counts the payments, each line with its own amount.
      expect(await text(page, 'h1')).toBe('Paid 3 payments');
      // An approval per token (USDC, DAI), then the one batch transaction.
      expect(sends(wallets[0])).toBe(3);
      const after = await balances(items);
      expect(after.map((a, i) => a - (before[i] ?? 0n))).toEqual([
        1_500_000n,
        2_250_000n,
        750_000_000_000_000_000n,
      ]);
      await context.close();

      const view = await rig.get(`/v2/secure-payments/multicall-payouts/${token}`);
      expect(view.body).toMatchObject({ status: 'completed', canExecute: false });
      expect((await rig.get(`/v2/secure-payments/${token}`)).status).toBe(409);
      for (const child of children) {
        const res = await rig.get(`/v2/secure-payments/${child}`);
        expect(res.status, child).toBe(409);
        expect(res.body).toMatchObject({ status: 'completed' });
      }
    },
    PAY_WITHIN_MS,
  );

  it(
    'shows a child paid alone before as paid and a blocked one as not sent, and pays only the others',
    async () => {
      const [r4, r5, r6, r7] = RECIPIENT.some;
      const items: LinkItem[] = [
        { currency: 'USDC', amount: '1', payee: r4 },
        { currency: 'USDC', amount: '2', payee: r5 },
        { currency: 'DAI', amount: '0.5', payee: r6 },
        { currency: 'USDC', amount: '3', payee: r7 },
      ];
      const children = await payouts(items, CREATOR.some);
      const [alone, , , screened] = children;
      if (!alone || !screened) throw new Error('no children');
      const token = await rig.multicall(children);
      const recipients = addresses(RECIPIENT.some);
      const before = await balances(items);

      // The first child is paid alone, from its own link, before the multicall is opened.
      const single = await rig.open(alone, [spec(CREATOR.some)]);
      await screen(single.page, 'pending');
      await single.page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
      await screen(single.page, 'completed');
      await single.context.close();
      // The last is stopped by compliance screening meanwhile (a fault injected in the store).
      await rig.t.db
        .update(securePayments)
        .set({ status: 'compliance_failed' })
        .where(eq(securePayments.token, screened));

      const { page, wallets, context } = await rig.open(token, [spec(CREATOR.some)]);
      await screen(page, 'pending');
      expect(await text(page, 'h1')).toBe('Send 2 USDC and 0.5 DAI to 2 recipients');
      expect(await text(page, '[data-field="left-out"]')).toBe(
        'Sends 2 of its 4 payouts; the others are marked below.',
      );
      expect(await texts(page, '[data-field="amount"]', 4)).toEqual([
        '1 USDC',
        '2 USDC',
        '0.5 DAI',
        '3 USDC',
      ]);
      expect(await texts(page, '[data-field="payee"]', 4)).toEqual(recipients);
      expect(await texts(page, '[data-field="state"]', 4)).toEqual([
        'Paid',
        'To send',
        'To send',
        'Not sent: blocked by screening',
      ]);
      expect(await texts(page, '[data-field="total"]', 2)).toEqual(['2 USDC', '0.5 DAI']);
      await rig.screenshot(page, 'multicall-partly-paid');

      await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
      // Nothing left that can be sent: done, though the screened child keeps the parent open.
      await screen(page, 'completed');
      // The receipt is of the two payouts just sent, not of the one paid before.
      expect(await text(page, 'h1')).toBe('Paid 2 payments');
      expect(sends(wallets[0])).toBe(3);
      const after = await balances(items);
      expect(after.map((a, i) => a - (before[i] ?? 0n))).toEqual([
        1_000_000n,
        2_000_000n,
        500_000_000_000_000_000n,
        0n,
      ]);
      await context.close();

      // Opened again, it shows where each child stands and offers no wallet anything.
      const again = await rig.open(token, [spec(CREATOR.some)]);
      await screen(again.page, 'pending');
      expect(await text(again.page, 'h1')).toBe('Nothing left to send');
      expect(await texts(again.page, '[data-field="state"]', 4)).toEqual([
        'Paid',
        'Paid',
        'Paid',
        'Not sent: blocked by screening',
      ]);
      expect(await again.page.locator('.wallets').count()).toBe(0);
      expect(again.wallets[0]?.calls.map((c) => c.method) ?? []).not.toContain(
        'eth_requestAccounts',
      );
      await again.context.close();

      const view = await rig.get(`/v2/secure-payments/multicall-payouts/${token}`);
      expect(view.body).toMatchObject({
        status: 'partially_settled',
        canExecute: false,
        children: [
          { blockReason: 'already_paid' },
          { blockReason: 'already_paid' },
          { blockReason: 'already_paid' },
          { blockReason: 'compliance_failed' },
        ],
      });
    },
    PAY_WITHIN_MS,
  );

  it('is refused to another wallet: the page says so and asks the wallet for no transaction', async () => {
    const [r8, r9] = RECIPIENT.refused;
    const children = await payouts(
      [
        { currency: 'USDC', amount: '4', payee: r8 },
        { currency: 'DAI', amount: '5', payee: r9 },
      ],
      CREATOR.refused,
    );
    const token = await rig.multicall(children);
    const { page, wallets, context } = await rig.open(token, [spec(STRANGER)]);
    await screen(page, 'pending');
    expect(await text(page, 'h1')).toBe('Send 4 USDC and 5 DAI to 2 recipients');
    await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
    await screen(page, 'pending');
    expect(await text(page, '[role="alert"]')).toBe(
      `Only the wallet that created this payout can send it: ${rig.wallet(CREATOR.refused).address}. This wallet is ${rig.wallet(STRANGER).address}. Connect that wallet, then try again.`,
    );
    await rig.screenshot(page, 'multicall-refused');
    const methods = wallets[0]?.calls.map((c) => c.method) ?? [];
    expect(methods).toContain('eth_requestAccounts');
    expect(methods).not.toContain('eth_sendTransaction');
    expect(methods).not.toContain('wallet_switchEthereumChain');
    expect(wallets[0]?.sent).toEqual([]);
    expect(rig.asked(`${token}/pay?`)).toBe(0);
    // The API refuses it too, had the page asked.
    const asked = await rig.get(
      `/v2/secure-payments/${token}/pay?wallet=${rig.wallet(STRANGER).address}`,
    );
    expect(asked.status).toBe(403);
    expect(asked.body.code).toBe('payout_wallet_mismatch');
    await page.getByRole('button', { name: 'Pay with Test Wallet' }).waitFor();
    await context.close();
  });
});
