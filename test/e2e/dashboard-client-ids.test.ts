import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientIds, orchestratorClientLinks, users } from '../../src/db/schema.ts';
import { linkClientId } from '../../src/orchestrators/links.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
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
 * The dashboard's client IDs page in a real Chromium: a merchant creates a client ID for its
 * shop's origin with a platform fee (after the API refused one without its fee address), which
 * then works from that origin only; sees the platform linked to it and unlinks it; revokes it,
 * after which the API refuses it. Another account's client IDs never show.
 */

let rig: DashboardRig;
const EMAIL = `clients-${randomUUID().slice(0, 8)}@shop.example`;
const SHOP = 'https://shop.example';
const FEE_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

beforeAll(async () => {
  rig = await startDashboardRig();
}, 120_000);
afterAll(async () => {
  await rig?.close();
});

/** A browser call of the API with `clientId` from `origin`: its status (403 when refused). */
async function statusFrom(clientId: string, origin: string): Promise<number> {
  const res = await fetch(`${rig.origin}/v2/payments?fromDate=2026-01-01T00:00:00Z`, {
    headers: { 'x-client-id': clientId, origin },
  });
  return res.status;
}

async function clientIdsOf(accountId: string) {
  return rig.t.db
    .select({ id: clientIds.id, clientId: clientIds.clientId, status: clientIds.status })
    .from(clientIds)
    .where(eq(clientIds.accountId, accountId));
}

describe('the dashboard’s client IDs', { timeout: BROWSER_TEST_MS }, () => {
  it('creates one for an origin with a fee, unlinks its platform and revokes it', async () => {
    const other = await createTenant(rig.t.db, 'Another shop');
    const page = await rig.open('/');
    await registerInPage(page, EMAIL, 'correct horse battery');
    const [user] = await rig.t.db
      .select({ accountId: users.accountId })
      .from(users)
      .where(eq(users.email, EMAIL));
    const accountId = user?.accountId ?? '';
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Client IDs' })
      .click();
    await screen(page, 'client-ids');
    await page.getByText('No client IDs yet.').waitFor();

    const form = page.locator('form');
    await form.getByLabel('Label').fill('Web shop');
    await form.getByLabel('Allowed origins, one per line').fill(`${SHOP}\n`);
    await form.getByLabel('Platform fee, percent (optional)').fill('1.5');
    await page.getByRole('button', { name: 'Create client ID' }).click();
    // The API's own words: a fee needs the address it goes to; nothing was made.
    expect(await text(page, '[role="alert"]')).toMatch(/feeAddress/);
    expect(await clientIdsOf(accountId)).toEqual([]);

    await form.getByLabel('Fee address').fill(FEE_ADDRESS);
    await page.getByRole('button', { name: 'Create client ID' }).click();
    await page.locator('tr[data-row]').first().waitFor();
    const [made] = await clientIdsOf(accountId);
    if (!made) throw new Error('no client ID made');
    const row = page.locator(`tr[data-row="${made.clientId}"]`);
    expect(await row.locator('td').allTextContents()).toEqual([
      'Web shop',
      made.clientId,
      SHOP,
      `1.5% to ${FEE_ADDRESS}`,
      'None',
      'Never',
      'Revoke',
    ]);
    for (const { clientId } of await clientIdsOf(other.accountId)) {
      expect(await page.content()).not.toContain(clientId);
    }
    expect(await statusFrom(made.clientId, SHOP)).toBe(200);
    expect(await statusFrom(made.clientId, 'https://elsewhere.example')).toBe(403);

    const platform = await createOrchestrator(rig.t.db, 'Acme Platform');
    await linkClientId(rig.t.db, platform.orchestratorId, made.clientId);
    await page.reload();
    await screen(page, 'client-ids');
    await row.getByText('Acme Platform').waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'client-ids');

    await row.getByRole('button', { name: 'Unlink' }).click();
    expect(await text(page, '.confirm .confirm')).toContain('can no longer act');
    await row.getByRole('button', { name: 'Unlink now' }).click();
    await row.locator('td[data-label="Platform"]').getByText('None').waitFor();
    const [link] = await rig.t.db
      .select({ status: orchestratorClientLinks.status })
      .from(orchestratorClientLinks)
      .where(eq(orchestratorClientLinks.clientIdId, made.id));
    expect(link?.status).toBe('unlinked');

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke now' }).click();
    await row.locator('td[data-label="Status"]').getByText('Revoked').waitFor();
    expect(await statusFrom(made.clientId, SHOP)).toBe(403);
  });

  it('reads well on a phone', async () => {
    const page = await rig.open('/client-ids', VIEWPORTS[1]);
    await screen(page, 'sign-in');
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator('tr[data-row]').first().waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'client-ids');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  });
});
