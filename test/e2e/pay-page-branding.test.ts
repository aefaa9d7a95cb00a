import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientId } from '../../src/auth/client-ids.ts';
import { linkClientId } from '../../src/orchestrators/links.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';

/**
 * A platform's branding on the pay page, in a real Chromium: its colors as the page's CSS
 * variables, its logo (a file of BRANDING_DIR) above the card, its legal links below; a text
 * color unreadable on the card falls back to the default and the page says so in its log.
 */

let rig: PayPageRig;

/** A real PNG of one orange pixel, so the browser decodes it. */
function onePixelPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from([0, 0xff, 0x66, 0x00]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

beforeAll(async () => {
  rig = await startPayPageRig();
  const dir = join(rig.t.config.brandingDir, 'platform');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'logo.png'), onePixelPng());
  writeFileSync(join(dir, 'terms.html'), '<!doctype html><title>Terms</title><p>Terms.</p>');
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

/** A link made with a client ID linked to a platform that has branded its page. */
async function brandedLink(branding: object): Promise<string> {
  const platform = await createOrchestrator(rig.t.db, `Platform ${Math.random()}`);
  const { clientId } = await createClientId(rig.t.db, {
    accountId: rig.tenant.accountId,
    label: 'Platform shop',
    allowedDomains: [],
  });
  await linkClientId(rig.t.db, platform.orchestratorId, clientId);
  const created = await rig.t.app.inject({
    method: 'POST',
    url: '/v2/orchestrators/branding',
    headers: { 'x-orchestrator-key': platform.orchestratorKey },
    payload: branding,
  });
  expect(created.statusCode, created.body).toBe(201);
  // The destination of an API-key link of the tenant's, paid by a link made with the client ID.
  const plain = await rig.link([{ currency: 'USDC', amount: '3', payee: 1 }]);
  const { body } = await rig.get(`/v2/secure-payments/${plain}`);
  const destinationId = (body.destination as { destinationId: string }).destinationId;
  const res = await rig.t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: { 'x-client-id': clientId },
    payload: { requests: [{ destinationId, amount: '3' }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().token;
}

describe('a branded link’s page', () => {
  it('shows the platform’s colors, logo and terms; an unreadable text color falls back, logged', async () => {
    const token = await brandedLink({
      logoPath: '/branding/platform/logo.png',
      termsPath: '/branding/platform/terms.html',
      pageBackgroundColor: '#102030',
      primaryActionColor: '#ff6600',
      // Near-white text on the default white card: unreadable.
      primaryTextColor: '#fafafa',
    });
    const { context, page } = await rig.open(token, []);
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    await page.reload();
    await page.locator('[data-screen]:not([data-screen="loading"])').waitFor({ timeout: 30_000 });
    // Evaluated in the page, as text: the test itself is not type-checked against the DOM.
    const variables = await page.evaluate(`(() => {
      const style = document.documentElement.style;
      return {
        page: style.getPropertyValue('--page-bg'),
        card: style.getPropertyValue('--card-bg'),
        action: style.getPropertyValue('--action'),
        text: style.getPropertyValue('--text'),
        background: getComputedStyle(document.body).backgroundColor,
      };
    })()`);
    expect(variables).toMatchObject({
      page: '#102030',
      card: '#ffffff',
      action: '#ff6600',
      text: '#475569',
    });
    expect(variables).toMatchObject({ background: 'rgb(16, 32, 48)' });
    const logo = page.locator('img.logo');
    await logo.waitFor();
    await expect
      .poll(() => page.evaluate("document.querySelector('img.logo').naturalWidth"))
      .toBe(1);
    const terms = page.locator('footer.legal a', { hasText: 'Terms' });
    expect(await terms.getAttribute('href')).toBe('/branding/platform/terms.html');
    // Below the card, on the dark page: white, not the card's text color.
    expect(
      await page.evaluate("getComputedStyle(document.querySelector('footer.legal a')).color"),
    ).toBe('rgb(255, 255, 255)');
    expect(warnings.join('\n')).toContain('primaryTextColor replaced by the page');
    await rig.screenshot(page, 'branded');
    await context.close();
  });

  it('keeps the defaults for a link without branding', async () => {
    const token = await rig.link([{ currency: 'USDC', amount: '2', payee: 2 }]);
    const { context, page } = await rig.open(token, []);
    await page.locator('[data-screen]:not([data-screen="loading"])').waitFor({ timeout: 30_000 });
    const action = await page.evaluate(
      "document.documentElement.style.getPropertyValue('--action')",
    );
    expect(action).toBe('#00d395');
    expect(await page.locator('img.logo').count()).toBe(0);
    await context.close();
  });
});
