import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recurringPayouts, requests, users } from '../../src/db/schema.ts';
import { BROWSER_TEST_MS, DASHBOARD_LOCALE, registerInPage, VIEWPORTS } from '../dashboard/rig.ts';
import { accessibilityProblems, screen, text } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import { installTestWallets, type TestWallet } from '../pay-page/wallet.ts';

/**
 * Paying out from the dashboard, in a real Chromium on the sandbox chain: a list of recipients
 * with a bad line creates nothing and says which line, as does one the API refuses; fixed, the
 * payouts are made in one batch and sent from the merchant's browser wallet, and the payees
 * are paid on chain and the requests marked paid. A recurring payout shows its next date, is
 * unpaused after a failure paused it, and cancelled.
 */

let rig: PayPageRig;
const contexts: BrowserContext[] = [];
const EMAIL = `payouts-${randomUUID().slice(0, 8)}@shop.example`;
const PASSWORD = 'correct horse battery';
/** Sandbox wallets: the merchant who pays, and two payees. */
const MERCHANT = 6;
const PAYEES = [7, 8] as const;

beforeAll(async () => {
  rig = await startPayPageRig({ network: 'sandbox' });
}, 180_000);
afterAll(async () => {
  for (const context of contexts) await context.close();
  await rig?.close();
});

async function dashboard(
  path = '/payouts',
  viewport: { width: number; height: number } = VIEWPORTS[0],
): Promise<{ page: Page; context: BrowserContext; wallet: TestWallet | undefined }> {
  const context = await rig.browser.newContext({ viewport, locale: DASHBOARD_LOCALE });
  contexts.push(context);
  const [wallet] = await installTestWallets(context, rig.local.chain, [
    { name: 'Merchant Wallet', rdns: 'test.merchant.wallet', account: rig.wallet(MERCHANT) },
  ]);
  const page = await context.newPage();
  await page.goto(`${rig.origin}/dashboard${path}`);
  return { page, context, wallet };
}

async function shot(page: Page, name: string): Promise<void> {
  const size = page.viewportSize();
  await page.screenshot({
    path: `test-artifacts/dashboard/${name}-${size?.width}x${size?.height}.png`,
    fullPage: true,
  });
}

async function requestsOf(accountId: string) {
  return rig.t.db
    .select({ payee: requests.payee, status: requests.status })
    .from(requests)
    .where(eq(requests.accountId, accountId));
}

async function createPayouts(page: Page, lines: readonly string[]): Promise<void> {
  await page.getByLabel('Payouts (payee, amount, token)').fill(lines.join('\n'));
  await page.getByRole('button', { name: 'Check and create' }).click();
}

describe('the dashboard’s payouts', { timeout: BROWSER_TEST_MS }, () => {
  let accountId = '';

  it('creates nothing while a line is wrong, then pays every line from the wallet', async () => {
    const { page, wallet } = await dashboard('/');
    await registerInPage(page, EMAIL, PASSWORD);
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Payouts' })
      .click();
    await screen(page, 'payouts');
    const [user] = await rig.t.db
      .select({ accountId: users.accountId })
      .from(users)
      .where(eq(users.email, EMAIL));
    accountId = user?.accountId ?? '';
    await page.getByLabel('Network').selectOption({ label: 'Sandbox (local chain)' });
    const first = rig.wallet(PAYEES[0]).address;
    const second = rig.wallet(PAYEES[1]).address;

    // A bad address on line 3: said, and nothing made.
    await createPayouts(page, ['payee,amount,token', `${first},12.5,USDC`, '0x1234,3,USDC']);
    expect(await text(page, '[data-field="payouts-refused"]')).toBe(
      'Nothing was created: line 3 needs fixing.',
    );
    const row = page.locator('tr[data-row="3"]');
    expect(await row.locator('td[data-label="Problem"]').textContent()).toBe(
      'payee is not a wallet address (0x and 40 hex digits)',
    );
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, 'payouts-refused');
    expect(await requestsOf(accountId)).toEqual([]);

    // One the API refuses (more decimals than USDC has): shown on its line, nothing made.
    await createPayouts(page, [
      'payee,amount,token',
      `${first},12.5,USDC`,
      `${second},3.1234567,USDC`,
    ]);
    await page.locator('tr[data-row="3"]').waitFor();
    expect(await page.locator('tr[data-row]').count()).toBe(1);
    expect(await page.locator('tr[data-row="3"] td[data-label="Problem"]').textContent()).toMatch(
      /amount/,
    );
    expect(await requestsOf(accountId)).toEqual([]);

    // Fixed: one batch, sent from the wallet, the payees paid on chain.
    const balances = async () =>
      [await rig.balance('USDC', first), await rig.balance('USDC', second)] as const;
    const before = await balances();
    await createPayouts(page, [`${first},12.5,USDC`, `${second},3,USDC`]);
    await page.locator('[data-field="made"]').waitFor();
    expect(await text(page, '#made-payouts')).toBe('2 payouts made: send their 2 transactions');
    expect(await requestsOf(accountId)).toHaveLength(2);
    await page.getByRole('button', { name: 'Send 2 transactions with Merchant Wallet' }).click();
    await page.locator('[data-field="payouts-sent"]').waitFor({ timeout: 60_000 });
    expect(wallet?.sent).toHaveLength(2);
    const after = await balances();
    expect([after[0] - before[0], after[1] - before[1]]).toEqual([12_500_000n, 3_000_000n]);
    // Detection sees the batch pay both requests.
    await expect
      .poll(async () => (await requestsOf(accountId)).map((r) => r.status).sort(), {
        timeout: 30_000,
      })
      .toEqual(['paid', 'paid']);
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, 'payouts');

    // Home counts them as paid out, not received.
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Home' })
      .click();
    const sandbox = page.locator('tr[data-row="USDC-sandbox"]');
    await sandbox.waitFor();
    expect(await sandbox.locator('td[data-label="Paid out"]').textContent()).toBe('15.5 USDC (2)');
    expect(await sandbox.locator('td[data-label="Received"]').textContent()).toBe('0 USDC (0)');
  }, 180_000);

  it('shows a recurring payout’s next date, unpauses it and cancels it', async () => {
    const { page, context } = await dashboard();
    await screen(page, 'sign-in');
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await screen(page, 'payouts');
    // Made with the session, as a merchant's own script in the browser would.
    const start = new Date(Date.now() + 2 * 86_400_000);
    const made = await context.request.post(`${rig.origin}/v2/payouts`, {
      headers: { origin: rig.origin },
      data: {
        payee: rig.wallet(PAYEES[0]).address,
        amount: '5',
        invoiceCurrency: 'USDC-sandbox',
        paymentCurrency: 'USDC-sandbox',
        recurrence: {
          startDate: start.toISOString(),
          frequency: 'MONTHLY',
          totalPayments: 3,
          payer: rig.wallet(MERCHANT).address,
        },
      },
    });
    expect(made.status(), await made.text()).toBe(201);
    const { id } = (await made.json()) as { id: string };
    // A failed payment paused it (as the executor records one).
    await rig.t.db
      .update(recurringPayouts)
      .set({ status: 'paused', failureReason: 'insufficient allowance', failureCount: 1 })
      .where(eq(recurringPayouts.id, id));
    await page.reload();
    const row = page.locator(`tr[data-row="${id}"]`);
    await row.waitFor();
    expect(await row.locator('td[data-label="Status"]').textContent()).toBe(
      'Paused: insufficient allowance',
    );
    expect(await row.locator('td[data-label="Payments"]').textContent()).toBe('0 of 3');
    await row.getByRole('button', { name: 'Unpause' }).click();
    await expect
      .poll(() => row.locator('td[data-label="Status"]').textContent())
      .toMatch(/^Active/);

    await row.getByRole('button', { name: 'Cancel' }).click();
    await row.getByRole('button', { name: 'Cancel it' }).click();
    await expect
      .poll(() => row.locator('td[data-label="Status"]').textContent())
      .toMatch(/^Cancelled/);
    expect(await row.locator('td[data-label="Next"]').textContent()).toBe('—');
    const [stored] = await rig.t.db
      .select({ status: recurringPayouts.status })
      .from(recurringPayouts)
      .where(eq(recurringPayouts.id, id));
    expect(stored?.status).toBe('cancelled');
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('reads well on a phone', async () => {
    const { page } = await dashboard('/payouts', VIEWPORTS[1]);
    await screen(page, 'sign-in');
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator('tr[data-row]').first().waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot(page, 'payouts');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  });
});
