import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BROWSER_TEST_MS,
  type DashboardRig,
  registerInPage,
  startDashboardRig,
  VIEWPORTS,
} from '../dashboard/rig.ts';
import { createTenant } from '../fixtures.ts';
import { accessibilityProblems, screen, text } from '../pay-page/page.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';

/**
 * The dashboard's Webhooks page in a real Chromium, with a real receiver on loopback and the
 * dispatcher sending: a merchant registers the endpoint and copies its signing secret (shown
 * once), which the receiver then checks every delivery against; a test event the receiver
 * refuses shows its status code in the delivery log; once the receiver is mended, "Send again"
 * delivers it (the same delivery, signed). Another account's endpoints never show.
 */

let rig: DashboardRig;
let receiver: Receiver;
const EMAIL = `hooks-${randomUUID().slice(0, 8)}@shop.example`;

beforeAll(async () => {
  rig = await startDashboardRig();
  receiver = await startReceiver();
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await rig?.close();
});

describe('the dashboard’s webhooks', { timeout: BROWSER_TEST_MS }, () => {
  it('registers an endpoint, shows a failed delivery’s answer, and sends it again', async () => {
    const other = await createTenant(rig.t.db, 'Another shop');
    const theirs = await rig.t.app.inject({
      method: 'POST',
      url: '/v1/webhook',
      headers: { 'x-api-key': other.apiKey },
      payload: { url: 'https://another.example/hooks' },
    });
    expect(theirs.statusCode, theirs.body).toBe(201);

    const page = await rig.open('/');
    await registerInPage(page, EMAIL, 'correct horse battery');
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Webhooks' })
      .click();
    await screen(page, 'webhooks');
    await page.getByText('No endpoints yet.').waitFor();

    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    const secret = await page.getByLabel('Signing secret', { exact: true }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    // The receiver accepts only deliveries signed with the secret the page showed.
    receiver.verifyWith(secret);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const endpoint = page.locator('section.endpoint');
    await endpoint.waitFor();
    expect(await endpoint.count()).toBe(1);
    expect(await text(page, 'section.endpoint h2')).toBe(receiver.url);
    expect(await page.getByLabel('Signing secret', { exact: true }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    expect(await page.content()).not.toContain('another.example');

    // The receiver is down for the first delivery.
    receiver.respondWith(503);
    await page
      .getByRole('button', { name: 'Send a test event to every endpoint that is on' })
      .click();
    // The account's one endpoint that is on, not another account's.
    expect(await text(page, '[data-field="test-sent"]')).toBe('Sent to 1 endpoint.');
    await receiver.waitFor(1);
    await endpoint.getByRole('button', { name: 'Deliveries' }).click();
    const row = endpoint.locator('tbody tr');
    const outcome = row.locator('td[data-label="Outcome"]');
    await expect
      .poll(
        async () => {
          await endpoint.getByRole('button', { name: 'Refresh' }).click();
          return outcome.textContent();
        },
        { timeout: 15_000 },
      )
      .toMatch(/^Not delivered: answered 503/);
    expect(await row.locator('td[data-label="Event"]').textContent()).toBe(
      'payment.confirmed (test)',
    );
    // What the endpoint answered, as it answered it.
    expect(await row.locator('td[data-label="Answer"]').textContent()).toBe('ok');
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'webhooks');

    await row.getByRole('button', { name: 'Send again' }).click();
    const [first, second] = await receiver.waitFor(2);
    expect(receiver.refused).toEqual([]);
    expect(second?.headers['x-request-network-delivery']).toBe(
      first?.headers['x-request-network-delivery'],
    );
    expect(second?.rawBody).toBe(first?.rawBody);
    await expect
      .poll(
        async () => {
          await endpoint.getByRole('button', { name: 'Refresh' }).click();
          return outcome.textContent();
        },
        { timeout: 15_000 },
      )
      .toBe('Delivered (answered 200)');
  });

  it('reads well on a phone', async () => {
    const page = await rig.open('/webhooks', VIEWPORTS[1]);
    await screen(page, 'sign-in');
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const endpoint = page.locator('section.endpoint');
    await endpoint.waitFor();
    await endpoint.getByRole('button', { name: 'Deliveries' }).click();
    await endpoint.locator('tbody tr').first().waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'webhooks');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);

    // Removed only once confirmed.
    await endpoint.getByRole('button', { name: 'Remove', exact: true }).click();
    expect(await endpoint.count()).toBe(1);
    await endpoint.getByRole('button', { name: 'Remove now' }).click();
    await page.getByText('No endpoints yet.').waitFor();
  });
});
