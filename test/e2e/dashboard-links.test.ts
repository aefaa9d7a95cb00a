import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payeeDestinations, users } from '../../src/db/schema.ts';
import { BROWSER_TEST_MS, DASHBOARD_LOCALE, registerInPage, VIEWPORTS } from '../dashboard/rig.ts';
import { accessibilityProblems, screen, text } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import { installTestWallets, type TestWallet } from '../pay-page/wallet.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';

/**
 * A merchant's first payment, from the dashboard alone, in a real Chromium on the sandbox
 * chain: sign up with e-mail; register a webhook endpoint; add a destination, signed in the
 * merchant's browser wallet (EIP-712); create a link to it; a payer pays it on the hosted page
 * with a test wallet; the link's page shows it paid, the payment with its transaction, and the
 * webhook it caused; the payments list has it. Another account's link never shows.
 */

let rig: PayPageRig;
let receiver: Receiver;
const contexts: BrowserContext[] = [];
const EMAIL = `links-${randomUUID().slice(0, 8)}@shop.example`;
const PASSWORD = 'correct horse battery';
/** Sandbox wallets: the merchant's (payee) and the payer's. */
const MERCHANT = 4;
const PAYER = 5;

beforeAll(async () => {
  rig = await startPayPageRig({ network: 'sandbox' });
  receiver = await startReceiver();
}, 180_000);
afterAll(async () => {
  for (const context of contexts) await context.close();
  await receiver?.close();
  await rig?.close();
});

async function dashboard(
  path: string,
  viewport: { width: number; height: number } = VIEWPORTS[0],
): Promise<{ page: Page; wallet: TestWallet | undefined }> {
  const context = await rig.browser.newContext({ viewport, locale: DASHBOARD_LOCALE });
  contexts.push(context);
  const [wallet] = await installTestWallets(context, rig.local.chain, [
    { name: 'Merchant Wallet', rdns: 'test.merchant.wallet', account: rig.wallet(MERCHANT) },
  ]);
  const page = await context.newPage();
  await page.goto(`${rig.origin}/dashboard${path}`);
  return { page, wallet };
}

async function shot(page: Page, name: string): Promise<void> {
  const size = page.viewportSize();
  await page.screenshot({
    path: `test-artifacts/dashboard/${name}-${size?.width}x${size?.height}.png`,
    fullPage: true,
  });
}

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true });

/** Clicks the page's Refresh until `read` gives `expected`. */
async function refreshUntil(page: Page, read: () => Promise<string | null>, expected: RegExp) {
  await expect
    .poll(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        await screen(page, 'link');
        return read();
      },
      { timeout: 30_000, interval: 500 },
    )
    .toMatch(expected);
}

describe('the dashboard’s links', { timeout: BROWSER_TEST_MS }, () => {
  let token = '';

  it('adds a destination in the wallet, creates a link, and shows it paid once paid', async () => {
    const { page, wallet } = await dashboard('/');
    await registerInPage(page, EMAIL, PASSWORD);
    const [user] = await rig.t.db
      .select({ accountId: users.accountId })
      .from(users)
      .where(eq(users.email, EMAIL));
    const accountId = user?.accountId ?? '';

    // The endpoint the payment's webhook goes to.
    await nav(page, 'Webhooks').click();
    await screen(page, 'webhooks');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    await page.getByRole('button', { name: 'I have stored it' }).click();

    // A destination, signed in the wallet: nothing is written before it signs.
    await nav(page, 'Destinations').click();
    await screen(page, 'destinations');
    await page.getByText('No destinations yet.').waitFor();
    await page.getByLabel('Network').selectOption({ label: 'Sandbox (local chain)' });
    await page.getByLabel('Token').selectOption({ label: 'USDC' });
    await page.getByRole('button', { name: 'Add and sign with Merchant Wallet' }).click();
    const row = page.locator('tr[data-row]');
    await row.first().waitFor();
    expect(wallet?.signed).toHaveLength(1);
    expect(await text(page, '[data-field="destination-added"]')).toBe(
      'Added: USDC on Sandbox (local chain).',
    );
    expect(await row.locator('td[data-label="Wallet"]').textContent()).toBe(
      rig.wallet(MERCHANT).address,
    );
    expect(await row.locator('td[data-label="Token"]').textContent()).toBe('USDC');
    const stored = await rig.t.db
      .select()
      .from(payeeDestinations)
      .where(and(eq(payeeDestinations.accountId, accountId), eq(payeeDestinations.active, true)));
    expect(stored).toMatchObject([
      { walletAddress: rig.wallet(MERCHANT).address, network: 'sandbox', chainId: 31337 },
    ]);
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, 'destinations');

    // A link to it.
    await nav(page, 'Links').click();
    await screen(page, 'links');
    await page.getByLabel('Amount', { exact: true }).fill('12.5');
    await page.getByLabel('Reference (optional)').fill('order-77');
    await page.getByRole('button', { name: 'Create link' }).click();
    await screen(page, 'link');
    expect(await text(page, '[data-field="link-status"]')).toBe('Awaiting payment');
    const payUrl = (await page.locator('[data-field="pay-url"]').getAttribute('href')) ?? '';
    token = new URL(payUrl).searchParams.get('token') ?? '';
    expect(token).toMatch(/^[0-9A-Z]{26}$/);
    expect(new URL(page.url()).pathname).toBe(`/dashboard/links/${token}`);
    expect(await page.locator('td[data-label="Amount"]').first().textContent()).toBe(
      '12.5 USDC on Sandbox (local chain)',
    );
    expect(await page.getByText('No payment yet.').count()).toBe(1);
    expect(await accessibilityProblems(page)).toEqual([]);

    // The payer pays on the hosted page.
    const payer = await rig.open(token, [
      { name: 'Payer Wallet', rdns: 'test.payer.wallet', account: rig.wallet(PAYER) },
    ]);
    await payer.page.getByRole('button', { name: 'Pay with Payer Wallet' }).click();
    await payer.page.locator('[data-screen="completed"]').waitFor({ timeout: 60_000 });
    await payer.context.close();

    await refreshUntil(
      page,
      () => page.locator('[data-field="link-status"]').textContent(),
      /^Paid$/,
    );
    const payment = page.locator('section[aria-labelledby="link-payments"] tbody tr');
    expect(await payment.count()).toBe(1);
    expect(await payment.locator('td[data-label="Amount"]').textContent()).toBe('12.5 USDC');
    expect(await payment.locator('td[data-label="Payer"]').textContent()).toBe(
      rig.wallet(PAYER).address,
    );
    // The sandbox's explorer is the service's own page of a transaction.
    const tx = payment.locator('td[data-label="Transaction"] a');
    expect(await tx.getAttribute('href')).toMatch(/\/sandbox\/tx\/0x[0-9a-f]{64}$/);
    await receiver.waitFor(1);
    const webhook = page.locator('section[aria-labelledby="link-webhooks"] tbody tr');
    await refreshUntil(
      page,
      () => webhook.first().locator('td[data-label="Outcome"]').textContent(),
      /^Delivered$/,
    );
    expect(await webhook.first().locator('td[data-label="Endpoint"]').textContent()).toBe(
      receiver.url,
    );
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, 'link');

    // The list has it, paid; the payments list too.
    await nav(page, 'Links').click();
    await screen(page, 'links');
    const listed = page.locator(`tr[data-row="${token}"]`);
    await listed.waitFor();
    expect(await listed.locator('td[data-label="Status"]').textContent()).toBe('Paid');
    expect(await page.locator('tr[data-row]').count()).toBe(1);
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, 'links');
    await nav(page, 'Payments').click();
    await page.locator('tr[data-row]').first().waitFor();
    expect(await page.locator('td[data-label="Reference"]').allTextContents()).toEqual([
      'order-77',
    ]);

    // Home: received, drawn day by day; no link awaits payment; the endpoint answers.
    await nav(page, 'Home').click();
    await screen(page, 'home');
    const sandbox = page.locator('tr[data-row="USDC-sandbox"]');
    await sandbox.waitFor();
    expect(await sandbox.locator('td[data-label="Received"]').textContent()).toBe('12.5 USDC (1)');
    expect(await sandbox.locator('td[data-label="Paid out"]').textContent()).toBe('0 USDC (0)');
    expect(await text(page, '[data-field="payments-count"]')).toBe('1');
    // The chart's library loads after the page (daily-chart.tsx): its canvas comes once it has.
    const chart = page.locator('[data-field="daily-chart"] canvas');
    await chart.first().waitFor();
    expect(await chart.count()).toBe(1);
    expect(await text(page, '[data-field="links-awaiting"]')).toBe('0 links');
    expect(await text(page, 'tr[data-row="USDC-sandbox"] td[data-label="Currency"]')).toBe(
      'USDC on Sandbox (local chain)',
    );
    expect(await page.locator('[data-field="endpoints-ok"]').count()).toBe(1);
    expect(await text(page, 'section[aria-labelledby="latest"] td[data-label="Reference"]')).toBe(
      'order-77',
    );
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, 'home');

    // A payout link: the merchant pays the payer back from its own wallet, on a page.
    await nav(page, 'Links').click();
    await screen(page, 'links');
    await page.getByLabel('Network of the payout').selectOption({ label: 'Sandbox (local chain)' });
    await page.getByLabel('Token of the payout').selectOption({ label: 'USDC' });
    await page.getByLabel('Amount to pay').fill('2');
    await page.getByLabel('Reference of the payout (optional)').fill('refund-77');
    await page.getByLabel("Recipient's wallet").fill(rig.wallet(PAYER).address);
    await page.getByLabel('Paid from (your wallet)').fill(rig.wallet(MERCHANT).address);
    await page.getByRole('button', { name: 'Create payout link' }).click();
    await screen(page, 'link');
    await page.getByRole('heading', { name: 'Payout link refund-77' }).waitFor();
    expect(await text(page, '[data-field="link-status"]')).toBe('Awaiting payment');
    expect(await page.locator('td[data-label="Payee"]').first().textContent()).toBe(
      rig.wallet(PAYER).address,
    );
    await nav(page, 'Links').click();
    const payoutRow = page.locator('tr[data-row]').first();
    await payoutRow.waitFor();
    expect(await payoutRow.locator('td[data-label="Kind"]').textContent()).toBe('Payout, single');

    // Home counts it as awaiting payment, and leads to exactly it.
    await nav(page, 'Home').click();
    await screen(page, 'home');
    expect(await text(page, '[data-field="links-awaiting"]')).toBe('1 link');
    await page.locator('[data-field="links-awaiting"]').click();
    await screen(page, 'links');
    await page.getByText('1 link on this page, newest first').waitFor();
    expect(await page.locator('tr[data-row] td[data-label="Status"]').allTextContents()).toEqual([
      'Awaiting payment',
    ]);
  }, 180_000);

  it('never shows another account’s link', async () => {
    const theirs = await rig.link([{ currency: 'USDC', amount: '3', payee: 1 }], {
      reference: 'not-yours',
    });
    const { page } = await dashboard(`/links/${theirs}`);
    await screen(page, 'sign-in');
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await screen(page, 'link');
    expect(await text(page, '[role="alert"]')).toBe('Secure payment not found');
    expect(await page.content()).not.toContain('not-yours');
  });

  it('reads well on a phone', async () => {
    for (const path of ['/destinations', '/links', `/links/${token}`]) {
      const { page } = await dashboard(path, VIEWPORTS[1]);
      await screen(page, 'sign-in');
      await page.getByLabel('E-mail').fill(EMAIL);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.locator('tr[data-row]').first().waitFor();
      expect(await accessibilityProblems(page), path).toEqual([]);
      const name = path === '/destinations' ? 'destinations' : path === '/links' ? 'links' : 'link';
      await shot(page, name);
      expect(await page.evaluate('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(
        375,
      );
    }
  });
});
