import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientId } from '../../src/auth/client-ids.ts';
import { linkClientId } from '../../src/orchestrators/links.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import { accessibilityProblems, screen, text, texts } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';

/**
 * A paid link's page is its receipt, in a real Chromium: the amount, the payee, when it was
 * paid (the block's time), the fee legs of the link's plan as paid (each with its own
 * transaction), the payment's transaction with its explorer link, under the platform's colours; a Print button, and a print style sheet that leaves the buttons
 * out and the receipt on one page. The same receipt right after paying and for a payer who
 * comes back to the link later.
 */

let rig: PayPageRig;

beforeAll(async () => {
  rig = await startPayPageRig();
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

const PAYEE = 1;
const PAYER = 6;
const FEE_WALLET = '0x2546BcD3c84621e976D8185a91A922aE77ECEc30';
const ACTION_COLOR = '#1d4ed8';

/**
 * A 10 USDC link made by a platform for its merchant (paired auth), under a payer-borne fee of
 * 50 bps capped at 0.40 USD, and the platform's branding.
 */
async function platformLink(): Promise<string> {
  const platform = await createOrchestrator(rig.t.db, 'Receipt platform');
  // The tenant's destination for the payee, as an API-key link of theirs makes it.
  const plain = await rig.link([{ currency: 'USDC', amount: '1', payee: PAYEE }]);
  const { body } = await rig.get(`/v2/secure-payments/${plain}`);
  const destinationId = (body.destination as { destinationId: string }).destinationId;
  const { clientId } = await createClientId(rig.t.db, {
    accountId: rig.tenant.accountId,
    label: 'Platform shop',
    allowedDomains: [],
    payeeDestinationId: destinationId,
  });
  await linkClientId(rig.t.db, platform.orchestratorId, clientId);
  const key = { 'x-orchestrator-key': platform.orchestratorKey };
  for (const [url, payload] of [
    [
      '/v2/orchestrators/fee-configs',
      {
        flow: 'incoming',
        feeBearer: 'payer',
        bps: 50,
        usdCap: '0.40',
        evmRecipientAddress: FEE_WALLET,
      },
    ],
    ['/v2/orchestrators/branding', { primaryActionColor: ACTION_COLOR }],
  ] as const) {
    const res = await rig.t.app.inject({ method: 'POST', url, headers: key, payload });
    expect(res.statusCode, res.body).toBe(201);
  }
  const res = await rig.t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: { ...key, 'x-client-id': clientId },
    payload: { requests: [{ amount: '10' }], reference: 'invoice-77' },
  });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json().feePlan.fees).toHaveLength(1);
  return res.json().token;
}

/** The block time of a transaction, as an ISO string. */
async function blockTime(hash: `0x${string}`): Promise<string> {
  const receipt = await rig.local.chain.client.getTransactionReceipt({ hash });
  const block = await rig.local.chain.client.getBlock({ blockHash: receipt.blockHash });
  return new Date(Number(block.timestamp) * 1000).toISOString();
}

/** Everything the receipt says, read off the page. */
async function readReceipt(page: Page) {
  await screen(page, 'completed');
  return {
    title: await text(page, 'h1'),
    amount: await text(page, '[data-field="amount"]'),
    payee: await text(page, '[data-field="payee"]'),
    network: await text(page, '[data-field="network"]'),
    reference: await text(page, '[data-field="reference"]'),
    paidAt: await page.locator('[data-field="paid-at"]').getAttribute('datetime'),
    paidAtText: await text(page, '[data-field="paid-at"]'),
    fees: await texts(page, '[data-field="fee"]', 1),
    tx: await text(page, '[data-field="tx"]'),
    explorer: await page.locator('[data-field="explorer"]').getAttribute('href'),
    feeExplorer: await page.locator('[data-field="fee-explorer"]').getAttribute('href'),
    action: String(
      await page.evaluate(
        "getComputedStyle(document.documentElement).getPropertyValue('--action').trim()",
      ),
    ),
  };
}

describe('the receipt of a paid link', () => {
  it('shows amount, payee, date, fees and the transaction, prints on one page, and shows again later', async () => {
    const token = await platformLink();
    const { page, wallets, context } = await rig.open(token, [
      { name: 'Test Wallet', rdns: 'test.payreq.wallet', account: rig.wallet(PAYER) },
    ]);
    await screen(page, 'pending');
    await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
    const shown = await readReceipt(page);
    // The approval, the payment, then the fee leg.
    const [, paymentTx, feeTx] = wallets[0]?.sent ?? [];
    if (!paymentTx || !feeTx) throw new Error('no payment sent');
    const expected = {
      title: 'Paid 10 USDC',
      amount: '10 USDC',
      payee: rig.wallet(PAYEE).address,
      network: 'Base',
      reference: 'invoice-77',
      paidAt: await blockTime(paymentTx),
      paidAtText: expect.stringMatching(/\d/),
      // The fee leg as paid on chain, in the token, with its own transaction.
      fees: [`Platform fee 0.05 USDC, paid by the payerPaid${feeTx}`],
      feeExplorer: `https://basescan.org/tx/${feeTx}`,
      tx: paymentTx,
      explorer: `https://basescan.org/tx/${paymentTx}`,
      action: ACTION_COLOR,
    };
    expect(shown).toEqual(expected);
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'receipt');

    // The Print button prints (the browser's own print events say so).
    await page.evaluate(
      "window.printed = 0; addEventListener('beforeprint', () => window.printed++)",
    );
    await page.getByRole('button', { name: 'Print receipt' }).click();
    await page.waitForFunction('window.printed === 1');

    // Printed: the buttons left out, the receipt whole on one sheet.
    await page.emulateMedia({ media: 'print' });
    expect(await page.getByRole('button', { name: 'Print receipt' }).isVisible()).toBe(false);
    expect(await page.locator('[data-field="tx"]').isVisible()).toBe(true);
    const pdf = (await page.pdf({ format: 'A4' })).toString('latin1');
    expect(pdf.match(/\/Type\s*\/Page(?!s)/g)).toHaveLength(1);
    await context.close();

    // A payer who comes back to the link, in another browser, gets the same receipt.
    const again = await rig.open(token, []);
    expect(await readReceipt(again.page)).toEqual(expected);
    await again.context.close();
  });
});
