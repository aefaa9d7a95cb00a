import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payments, users } from '../../src/db/schema.ts';
import { PAYMENT_EXPORT_COLUMNS } from '../../src/payments-search/export.ts';
import {
  BROWSER_TEST_MS,
  type DashboardRig,
  loadPaymentsOf,
  registerInPage,
  startDashboardRig,
  VIEWPORTS,
} from '../dashboard/rig.ts';
import { createTenant } from '../fixtures.ts';
import { rowFacts } from '../list-rows.ts';
import { accessibilityProblems, screen, text } from '../pay-page/page.ts';

/**
 * The dashboard's Payments page in a real Chromium: the account's payments of the last 30 days
 * page by page (25 a page), found by reference, linked to their transaction on the network's
 * explorer, and downloaded as CSV with the same filters, row for row. Another account's
 * payments never show, in the page or the file.
 */

let rig: DashboardRig;
const EMAIL = `payments-${randomUUID().slice(0, 8)}@shop.example`;
/** Rows 1..30 of test/list-rows.ts are the account's: paid 1 to 30 days ago, oldest last. */
const RECENT = 28;
const OLD = 2;

beforeAll(async () => {
  rig = await startDashboardRig();
}, 120_000);
afterAll(async () => {
  await rig?.close();
});

/** Rows `from`..`to` of test/list-rows.ts for the account, the first paid a day ago, the next two… */
async function seed(accountId: string, from: number, to: number): Promise<void> {
  const db = rig.t.db;
  await loadPaymentsOf(db, accountId, from, to);
  // Row i paid i days ago (and an hour): its payment reference is i in hex.
  const row = sql`('x' || ${payments.paymentReference})::bit(64)::bigint - ${from - 1}`;
  await db
    .update(payments)
    .set({ timestamp: sql`now() - (${row}) * interval '1 day' - interval '1 hour'` })
    .where(eq(payments.accountId, accountId));
}

describe('the dashboard’s Payments page', { timeout: BROWSER_TEST_MS }, () => {
  it('pages the last 30 days, finds by reference, and downloads the same rows as CSV', async () => {
    const page = await rig.open('/');
    await registerInPage(page, EMAIL, 'correct horse battery');
    const [user] = await rig.t.db
      .select({ accountId: users.accountId })
      .from(users)
      .where(eq(users.email, EMAIL));
    await seed(user?.accountId ?? '', 1, RECENT + OLD);
    // The last two long before the 30 days.
    await rig.t.db
      .update(payments)
      .set({ timestamp: sql`now() - interval '60 days'` })
      .where(
        inArray(
          payments.paymentReference,
          [RECENT + 1, RECENT + 2].map((i) => rowFacts(i).paymentReference),
        ),
      );
    const other = await createTenant(rig.t.db, 'Another shop');
    await seed(other.accountId, 101, 105);

    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Payments' })
      .click();
    await screen(page, 'payments');
    expect(await text(page, '[data-field="payments-found"]')).toBe(`${RECENT} payments`);
    expect(await page.locator('tbody tr').count()).toBe(25);
    // Newest first: row 1, paid a day ago, then row 2.
    const references = () => page.locator('td[data-label="Reference"]').allTextContents();
    expect((await references()).slice(0, 2)).toEqual(['order-1', 'order-2']);
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'payments');

    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('button', { name: 'Previous page' }).waitFor();
    expect(await references()).toEqual(['order-26', 'order-27', 'order-28']);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByRole('button', { name: 'Next page' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(25);

    await page.getByLabel('Reference').fill('order-7');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1 payment', { exact: true }).waitFor();
    const row = page.locator('tbody tr');
    expect(await row.locator('td[data-label="Reference"]').textContent()).toBe('order-7');
    const link = row.locator('td[data-label="Transaction"] a');
    const txHash = rowFacts(7).txHash;
    expect(await link.getAttribute('href')).toBe(
      rig.t.chains.explorerTxUrl('base', txHash) ?? 'none',
    );

    // The file holds what the search found: the filter travels with it.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path()) ?? '', 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe(PAYMENT_EXPORT_COLUMNS.join(','));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`,${rowFacts(7).requestId},order-7,`);

    // Without the reference: every recent payment of the account, and no other's.
    await page.getByLabel('Reference').fill('');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText(`${RECENT} payments`, { exact: true }).waitFor();
    const [all] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    const rows = readFileSync((await all.path()) ?? '', 'utf8')
      .trimEnd()
      .split('\r\n');
    expect(rows).toHaveLength(RECENT + 1);
    expect(rows.join('\n')).not.toMatch(/order-10[1-5]\b/);
    expect(await page.content()).not.toMatch(/order-10[1-5]\b/);
  });

  it('reads well on a phone', async () => {
    const page = await rig.open('/payments', VIEWPORTS[1]);
    await screen(page, 'sign-in');
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator('tbody tr').first().waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'payments');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  });
});
