import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screen, sends, text } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';

/**
 * A link written in USD, paid in USDC on the sandbox chain (real conversion contracts, mock
 * Chainlink feeds at 1 USD per USDC) from the hosted page in a real Chromium: the page shows
 * the fiat amount, what the wallet sends and the rate with its age; the payee gets exactly the
 * converted amount and detection marks the request paid. Then the rate moves against the payer
 * between the wallet's estimate and its send (sandbox_setRate, as a script moves it): the
 * payment reverts on chain, the page reads a fresh quote, shows what happened, and the payer
 * pays the new amount.
 */

let rig: PayPageRig;

beforeAll(async () => {
  rig = await startPayPageRig({ network: 'sandbox' });
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

/** Sandbox wallets: a payee and a payer per test. */
const PAYEE = { quoted: 1, moved: 2 } as const;
const PAYER = { quoted: 6, moved: 7 } as const;

async function setUsdcRate(rate: string): Promise<void> {
  // A script's call (no Origin), as the curl of docs/guides/sandbox.md sends it.
  const response = await fetch(`${rig.origin}/sandbox/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'sandbox_setRate',
      params: [{ from: 'USDC', to: 'USD', rate }],
    }),
  });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (!body.result) throw new Error(`sandbox_setRate: ${JSON.stringify(body)}`);
}

async function usdLink(payee: number): Promise<{ token: string; requestId: string }> {
  const token = await rig.link([{ currency: 'USDC', amount: '25', payee, invoiceCurrency: 'USD' }]);
  const view = await rig.get(`/v2/secure-payments/${token}`);
  expect(view.body).toMatchObject({ amount: '25', invoiceCurrency: 'USD', invoiceAmount: '25' });
  const [requestId] = view.body.requestIds as string[];
  if (!requestId) throw new Error('no request');
  return { token, requestId };
}

async function expectPaid(requestId: string): Promise<void> {
  const status = await rig.get(`/v2/request/${requestId}`);
  expect(status.body).toMatchObject({
    status: 'paid',
    hasBeenPaid: true,
    invoiceCurrency: 'USD',
    paymentCurrency: 'USDC-sandbox',
    expectedAmount: '25',
    totalAmountPaid: '25',
  });
}

const payWith = (page: Page) => page.getByRole('button', { name: 'Pay with Test Wallet' }).click();

describe('paying a link written in fiat on the hosted page', () => {
  it('shows the USD amount, the USDC quote and its rate, and pays exactly the quote', async () => {
    const { token, requestId } = await usdLink(PAYEE.quoted);
    const payee = rig.wallet(PAYEE.quoted).address;
    const before = await rig.balance('USDC', payee);
    const { page, wallets, context } = await rig.open(token, [
      { name: 'Test Wallet', rdns: 'test.payreq.wallet', account: rig.wallet(PAYER.quoted) },
    ]);
    const [wallet] = wallets;

    await screen(page, 'pending');
    expect(await text(page, 'h1')).toBe('Pay 25 USD');
    expect(await text(page, '.network')).toBe('On Sandbox (local chain), paid in USDC');
    expect(await text(page, '[data-field="crypto-amount"]')).toBe('25 USDC');
    expect(await text(page, '[data-field="rate"]')).toBe('1 USD = 1 USDC');
    expect(await text(page, '[data-field="rate-age"]')).toMatch(
      /^(less than a minute|\d+ minutes?) ago$/,
    );
    expect(await text(page, '.quote p')).toContain('up to 25.5 USDC');
    await rig.screenshot(page, 'conversion-pending');

    await payWith(page);
    await screen(page, 'completed');
    expect(sends(wallet)).toBe(2);
    expect((await rig.balance('USDC', payee)) - before).toBe(25_000_000n);
    await expectPaid(requestId);
    await context.close();
  });

  it('reads a fresh quote when the rate moved and the payment reverted, and the payer pays it', async () => {
    const { token, requestId } = await usdLink(PAYEE.moved);
    const payee = rig.wallet(PAYEE.moved).address;
    const before = await rig.balance('USDC', payee);
    const { page, wallets, context } = await rig.open(token, [
      { name: 'Test Wallet', rdns: 'test.payreq.wallet', account: rig.wallet(PAYER.moved) },
    ]);
    const [wallet] = wallets;
    if (!wallet) throw new Error('no wallet');
    await screen(page, 'pending');
    expect(await text(page, '[data-field="crypto-amount"]')).toBe('25 USDC');

    // The payment (to the conversion proxy), once estimated: 1 USDC falls to 0.95 USD, so
    // 25 USD takes 26.315789 USDC, past the 25.5 the quote let the proxy take.
    const proxy = rig.t.chains.contracts('sandbox').erc20ConversionProxy?.toLowerCase();
    wallet.beforeSend = async (call) => {
      if (call.to.toLowerCase() !== proxy) return;
      wallet.beforeSend = null;
      await setUsdcRate('0.95');
    };
    try {
      await payWith(page);
      await screen(page, 'requote');
      expect(await text(page, 'h1')).toBe('The exchange rate moved');
      expect(await text(page, '[data-field="requote-reason"]')).toBe(
        'The rate changed before your payment was mined, so the network refused it and nothing was paid (only the network fee was spent). Your quote allowed up to 25.5 USDC.',
      );
      expect(await text(page, '[data-field="old-quote"]')).toBe('25 USDC (1 USD = 1 USDC)');
      expect(await text(page, '[data-field="crypto-amount"]')).toBe('26.315789 USDC');
      expect(await text(page, '[data-field="rate"]')).toBe('1 USD = 1.05263156 USDC');
      await rig.screenshot(page, 'conversion-requote');
      // Nothing moved: the payment reverted on chain.
      expect(await rig.balance('USDC', payee)).toBe(before);
      expect(sends(wallet)).toBe(2);

      await page.getByRole('button', { name: 'Pay 26.315789 USDC' }).click();
      await screen(page, 'completed');
      // The new quote needs a larger approval, then the payment.
      expect(sends(wallet)).toBe(4);
      expect((await rig.balance('USDC', payee)) - before).toBe(26_315_789n);
      await expectPaid(requestId);
    } finally {
      await setUsdcRate('1');
      await context.close();
    }
  });
});
