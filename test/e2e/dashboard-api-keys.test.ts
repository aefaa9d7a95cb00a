import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, users } from '../../src/db/schema.ts';
import {
  BROWSER_TEST_MS,
  type DashboardRig,
  registerInPage,
  startDashboardRig,
  VIEWPORTS,
} from '../dashboard/rig.ts';
import { createTenant } from '../fixtures.ts';
import { accessibilityProblems, screen, text } from '../pay-page/page.ts';

/**
 * The dashboard's API keys page in a real Chromium: a merchant signed in with e-mail reaches it
 * from the navigation (and by its address), creates a key that is shown once and works against
 * the API, never sees it again after saying it is stored, and revokes it, after which the API
 * refuses it. Another account's keys never show.
 */

let rig: DashboardRig;
const EMAIL = `keys-${randomUUID().slice(0, 8)}@shop.example`;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  rig = await startDashboardRig();
}, 120_000);
afterAll(async () => {
  await rig?.close();
});

/** A call of the API with `key`, as a merchant's server makes it: its status. */
async function statusWith(key: string): Promise<number> {
  const res = await fetch(`${rig.origin}/v2/payments?fromDate=2026-01-01T00:00:00Z`, {
    headers: { 'x-api-key': key },
  });
  return res.status;
}

/** What every field of the page holds (an input's value is not in the page's HTML). */
function inputValues(page: Page): Promise<string[]> {
  return page.evaluate('[...document.querySelectorAll("input, textarea")].map((f) => f.value)');
}

/** The prefixes of an account's keys, as the database holds them. */
async function prefixesOf(accountId: string): Promise<string[]> {
  const rows = await rig.t.db
    .select({ prefix: apiKeys.prefix })
    .from(apiKeys)
    .where(eq(apiKeys.accountId, accountId));
  return rows.map((row) => row.prefix);
}

describe('the dashboard’s API keys', { timeout: BROWSER_TEST_MS }, () => {
  it('creates a key shown once that works, and revokes it', async () => {
    const other = await createTenant(rig.t.db, 'Another shop');
    const [otherPrefix] = await prefixesOf(other.accountId);
    expect(otherPrefix).toBeTruthy();

    const page = await rig.open('/');
    await registerInPage(page, EMAIL, PASSWORD);
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'API keys' })
      .click();
    await screen(page, 'api-keys');
    expect(new URL(page.url()).pathname).toBe('/dashboard/api-keys');
    await page.getByText('No API keys yet.').waitFor();

    await page.getByLabel('Label (optional)').fill('Shop backend');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByLabel('New API key');
    await shown.waitFor();
    const apiKey = await shown.inputValue();
    expect(await text(page, '#new-key')).toBe('Your new key “Shop backend”');
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'api-key-created');

    // The key works, and it is the account's one key, which the page lists.
    expect(await statusWith(apiKey)).toBe(200);
    const [account] = await rig.t.db
      .select({ accountId: users.accountId })
      .from(users)
      .where(eq(users.email, EMAIL));
    const prefixes = await prefixesOf(account?.accountId ?? '');
    expect(prefixes).toHaveLength(1);
    const [prefix = 'none'] = prefixes;
    expect(apiKey.startsWith(prefix)).toBe(true);
    const row = page.locator(`tr[data-row="${prefix}"]`);
    await row.waitFor();
    expect(await row.locator('td').nth(0).textContent()).toBe('Shop backend');
    expect(await row.locator('td').nth(3).textContent()).toBe('Never');
    expect(await page.locator(`tr[data-row="${otherPrefix}"]`).count()).toBe(0);

    // The helper below sees it while it is shown (so it would see it if it stayed).
    expect(await inputValues(page)).toContain(apiKey);
    // Focus is on the key, ready to copy.
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe(
      'New API key',
    );
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('button', { name: 'Create API key' }).waitFor();
    // Gone from the page: no element shows it, no field holds it.
    expect(await page.getByLabel('New API key').count()).toBe(0);
    expect(await inputValues(page)).not.toContain(apiKey);
    expect(await page.content()).not.toContain(apiKey);
    await page.reload();
    await screen(page, 'api-keys');
    await row.waitFor();
    expect(await inputValues(page)).not.toContain(apiKey);
    // Used once since: the list says when.
    expect(await row.locator('td').nth(3).textContent()).not.toBe('Never');
    expect(await page.content()).not.toContain(apiKey);
    expect(await page.content()).not.toContain(otherPrefix);
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'api-keys');

    await row.getByRole('button', { name: 'Revoke' }).click();
    expect(await text(page, '.confirm')).toContain('Apps using it stop working.');
    await row.getByRole('button', { name: 'Revoke now' }).click();
    await row.getByText(/^Revoked /).waitFor();
    expect(await statusWith(apiKey)).toBe(401);
  });

  it('reads well on a phone, reached by its address', async () => {
    const page = await rig.open('/api-keys', VIEWPORTS[1]);
    await screen(page, 'sign-in');
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await screen(page, 'api-keys');
    await page.locator('tr[data-row]').first().waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'api-keys');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  });
});
