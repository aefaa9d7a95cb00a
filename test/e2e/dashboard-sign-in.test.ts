import { randomUUID } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payments, sessions, users } from '../../src/db/schema.ts';
import {
  BROWSER_TEST_MS,
  type DashboardRig,
  loadPaymentsOf,
  startDashboardRig,
  VIEWPORTS,
} from '../dashboard/rig.ts';
import { createTenant } from '../fixtures.ts';
import { accessibilityProblems, screen, text } from '../pay-page/page.ts';

/**
 * The dashboard in a real Chromium, signing in with e-mail and password: a merchant creates an
 * account on the sign-in page and lands on Home, which counts the account's payments of the
 * last 30 days (and no other account's); signs out, is refused a wrong password with the API's
 * own message, signs in again; and is sent back to sign in once its session ends. Every screen
 * is checked with axe and pictured at 1280×800 and 375×812.
 */

let rig: DashboardRig;
const EMAIL = `merchant-${randomUUID().slice(0, 8)}@shop.example`;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  rig = await startDashboardRig();
}, 120_000);
afterAll(async () => {
  await rig?.close();
});

async function signIn(page: Page, password = PASSWORD): Promise<void> {
  await screen(page, 'sign-in');
  await page.getByLabel('E-mail').fill(EMAIL);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Payments of `accountId` (rows `from`..`to` of test/list-rows.ts) paid `daysAgo[i]` days ago. */
async function paymentsOf(accountId: string, from: number, daysAgo: readonly number[]) {
  const db = rig.t.db;
  await loadPaymentsOf(db, accountId, from, from + daysAgo.length - 1);
  const rows = await db
    .select({ id: payments.id })
    .from(payments)
    .where(eq(payments.accountId, accountId))
    .orderBy(payments.timestamp);
  for (const [i, row] of rows.entries()) {
    await db
      .update(payments)
      .set({ timestamp: sql`now() - ${daysAgo[i] ?? 0} * interval '1 day'` })
      .where(eq(payments.id, row.id));
  }
}

describe('the dashboard, signing in with e-mail', { timeout: BROWSER_TEST_MS }, () => {
  it('creates an account, and Home counts its payments of the last 30 days only', async () => {
    const page = await rig.open('/');
    await screen(page, 'sign-in');
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'sign-in');

    await page.getByRole('button', { name: 'No account yet? Create one' }).click();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await screen(page, 'home');
    expect(await text(page, '[data-field="who"]')).toBe(EMAIL);
    expect(await text(page, '[data-field="payments-count"]')).toBe('0');
    // The session is the httpOnly cookie; nothing of it is kept where scripts can read it.
    expect(
      await page.evaluate('[document.cookie, localStorage.length, sessionStorage.length]'),
    ).toEqual(['', 0, 0]);

    const [user] = await rig.t.db
      .select({ accountId: users.accountId })
      .from(users)
      .where(eq(users.email, EMAIL));
    if (!user) throw new Error('no user made');
    // Three of its payments in the last 30 days, two before; four of another account's, recent.
    await paymentsOf(user.accountId, 1, [1, 10, 29, 31, 90]);
    const other = await createTenant(rig.t.db, 'Another shop');
    await paymentsOf(other.accountId, 6, [1, 2, 3, 4]);

    await page.reload();
    await screen(page, 'home');
    await page.locator('[data-field="payments-count"]').getByText('3', { exact: true }).waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'home');
  });

  it('signs out, refuses a wrong password with the API’s message, and signs in again', async () => {
    const page = await rig.open('/');
    await signIn(page);
    await screen(page, 'home');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await screen(page, 'sign-in');
    expect(await text(page, '.notice')).toBe('You are signed out.');
    // The cookie went with the session: a reload stays signed out.
    await page.reload();
    await screen(page, 'sign-in');

    await signIn(page, 'not the password');
    expect(await text(page, '[role="alert"]')).toBe('Invalid email or password');
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'sign-in-refused');

    await page.getByRole('button', { name: 'No account yet? Create one' }).click();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('An account with this e-mail already exists').waitFor();

    await page.getByRole('button', { name: 'Have an account? Sign in' }).click();
    await signIn(page);
    await page.locator('[data-field="payments-count"]').getByText('3', { exact: true }).waitFor();
  });

  it('goes back to sign-in once the session has ended on the server', async () => {
    const endSessions = async () => {
      const [user] = await rig.t.db
        .select({ id: users.id })
        .from(users)
        .where(eq(users.email, EMAIL));
      await rig.t.db
        .update(sessions)
        .set({ endedAt: new Date() })
        .where(inArray(sessions.userId, [user?.id ?? '']));
    };
    const page = await rig.open('/api-keys');
    await signIn(page);
    await screen(page, 'api-keys');
    // The page's own read answered first: ended before it, that read would end the page.
    await page.getByText('No API keys yet.').waitFor();
    // Mid-session: the next page's call is refused, and the merchant is told why.
    await endSessions();
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Home' })
      .click();
    await screen(page, 'sign-in');
    expect(await text(page, '.notice')).toBe('Your session ended: sign in again.');
    // On a reload: the sign-in page.
    await signIn(page);
    await screen(page, 'home');
    await endSessions();
    await page.reload();
    await screen(page, 'sign-in');
  });

  it('reads well on a phone', async () => {
    const page = await rig.open('/', VIEWPORTS[1]);
    await screen(page, 'sign-in');
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'sign-in');
    await signIn(page);
    await page.locator('[data-field="payments-count"]').getByText('3', { exact: true }).waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'home');
    // Nothing wider than the phone: the page never scrolls sideways.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  });
});
