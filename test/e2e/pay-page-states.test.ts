import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAY_PAGE } from '../../scripts/build-web-app.ts';
import { requests, securePayments } from '../../src/db/schema.ts';
import { accessibilityProblems } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';

/**
 * What a payer sees for each state of a link, in a real Chromium: the screens, their words,
 * their accessibility (axe-core), and the page's defences: the Content-Security-Policy stops
 * an injected inline script, and a hostile reference shows as text.
 */

const DAY_MS = 86_400_000;
const SIZES = [
  { width: 1280, height: 800 },
  { width: 375, height: 812 },
] as const;

let rig: PayPageRig;

beforeAll(async () => {
  rig = await startPayPageRig();
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

const usdc = (amount = '5') => [{ currency: 'USDC' as const, amount, payee: 1 }];

async function openPage(path: string, size: { width: number; height: number } = SIZES[0]) {
  const context = await rig.browser.newContext({ viewport: size });
  const page = await context.newPage();
  await page.goto(`${rig.origin}${path}`);
  return { context, page };
}

async function shownScreen(page: Page): Promise<{ name: string | null; title: string }> {
  const card = page.locator('[data-screen]:not([data-screen="loading"])');
  await card.waitFor({ timeout: 30_000 });
  return {
    name: await card.getAttribute('data-screen'),
    title: ((await page.locator('h1').textContent()) ?? '').trim(),
  };
}

describe('the screens of a link', () => {
  it('shows a pending link’s summary before the wallet code has loaded', async () => {
    const token = await rig.link(usdc('7.25'), { reference: 'inv-7' });
    const context = await rig.browser.newContext();
    const page = await context.newPage();
    // Hold every file the entry does not import itself: the wallet code arrives late.
    const manifest = JSON.parse(readFileSync(join(PAY_PAGE.dist, 'manifest.json'), 'utf8'));
    const entry = readFileSync(join(PAY_PAGE.dist, manifest.main), 'utf8');
    const eager = new Set([
      manifest.main,
      ...[...entry.matchAll(/from"\.\/([^"]+)"/g)].map((m) => m[1]),
    ]);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/assets/*.js', async (route) => {
      const file = new URL(route.request().url()).pathname.split('/').pop() ?? '';
      if (!eager.has(file)) await held;
      await route.continue();
    });
    await page.goto(`${rig.origin}/?token=${token}`);
    expect(await shownScreen(page)).toEqual({ name: 'pending', title: 'Pay 7.25 USDC' });
    expect(await page.locator('.wallets').textContent()).toBe('Looking for wallets…');
    release();
    // No wallet in this browser: the page says so, in words.
    await page.getByText('No wallet found in this browser', { exact: false }).waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await context.close();
  });

  it('shows an expired link as expired', async () => {
    const token = await rig.link(usdc());
    rig.t.clock.advance(8 * DAY_MS);
    try {
      for (const size of SIZES) {
        const { context, page } = await openPage(`/?token=${token}`, size);
        expect(await shownScreen(page)).toEqual({
          name: 'expired',
          title: 'This payment link has expired',
        });
        await rig.screenshot(page, 'expired');
        expect(await accessibilityProblems(page)).toEqual([]);
        await context.close();
      }
    } finally {
      rig.t.clock.advance(-8 * DAY_MS);
    }
  });

  it('shows a completed link as paid, with the merchant’s way back', async () => {
    const token = await rig.link(usdc(), {
      redirectUrl: 'https://shop.example/orders/7',
      redirectLabel: 'Back to the shop',
    });
    await rig.t.db
      .update(securePayments)
      .set({ status: 'completed', completedAt: new Date() })
      .where(eq(securePayments.token, token));
    const [link] = await rig.t.db
      .select({ id: securePayments.id })
      .from(securePayments)
      .where(eq(securePayments.token, token));
    await rig.t.db
      .update(requests)
      .set({ status: 'paid' })
      .where(eq(requests.securePaymentId, link?.id ?? ''));
    const { context, page } = await openPage(`/?token=${token}`);
    expect(await shownScreen(page)).toEqual({ name: 'completed', title: 'Paid 5 USDC' });
    const back = page.getByRole('link', { name: 'Back to the shop' });
    expect(await back.getAttribute('href')).toBe('https://shop.example/orders/7');
    expect(await accessibilityProblems(page)).toEqual([]);
    await context.close();
  });

  it('shows an invalidated link as no longer valid', async () => {
    const token = await rig.link(usdc());
    await rig.t.db
      .update(securePayments)
      .set({ status: 'invalidated' })
      .where(eq(securePayments.token, token));
    const { context, page } = await openPage(`/?token=${token}`);
    expect(await shownScreen(page)).toEqual({
      name: 'invalidated',
      title: 'This payment link is no longer valid',
    });
    await context.close();
  });

  it('says so when the payment service does not answer, and loads the link when tried again', async () => {
    const token = await rig.link(usdc('3'));
    const context = await rig.browser.newContext();
    const page = await context.newPage();
    await page.clock.install();
    // The service takes the request and never answers, until the payer tries again.
    let answer = false;
    await page.route(`**/v2/secure-payments/${token}`, async (route) => {
      if (answer) await route.continue();
    });
    const asked = page.waitForRequest(`**/v2/secure-payments/${token}`);
    await page.goto(`${rig.origin}/?token=${token}`);
    await asked;
    await page.clock.runFor(60_000);
    expect(await shownScreen(page)).toEqual({ name: 'error', title: 'Something went wrong' });
    expect(await page.locator('[role="alert"]').textContent()).toBe(
      'The payment service is not answering. Try again in a moment.',
    );
    answer = true;
    await page.getByRole('button', { name: 'Try again' }).click();
    expect(await shownScreen(page)).toEqual({ name: 'pending', title: 'Pay 3 USDC' });
    await context.close();
  });

  it.each([
    ['an unknown token', '/?token=01KAAAAAAAAAAAAAAAAAAAAAAA'],
    ['no token', '/'],
    ['a malformed token', '/?token=%3Cscript%3E'],
    ['a token cut short, as a link copied in part', '/?token=01KAAAAAAAAAAAAAAAAAAAAAA'],
  ])('shows %s as not found', async (_name, path) => {
    const { context, page } = await openPage(path);
    expect(await shownScreen(page)).toEqual({ name: 'not_found', title: 'Payment not found' });
    await context.close();
  });
});

describe('the page’s defences', () => {
  it('shows a hostile reference as text, running nothing', async () => {
    const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const token = await rig.link(usdc(), { reference: hostile });
    const { context, page } = await openPage(`/?token=${token}`);
    await shownScreen(page);
    const field = page.locator('[data-field="reference"]');
    expect(await field.textContent()).toBe(hostile);
    expect(await field.locator('img, script').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    await context.close();
  });

  it('blocks an inline script with its Content-Security-Policy', async () => {
    const token = await rig.link(usdc());
    const { context, page } = await openPage(`/?token=${token}`);
    await shownScreen(page);
    const outcome = await page.evaluate(async () => {
      const doc = (globalThis as unknown as { document: InlineDocument }).document;
      const violation = new Promise<string>((resolve) => {
        doc.addEventListener('securitypolicyviolation', (event) =>
          resolve(`${event.violatedDirective} ${event.blockedURI}`),
        );
      });
      const script = doc.createElement('script');
      script.textContent = 'globalThis.__inlineRan = true';
      doc.head.append(script);
      return {
        violation: await violation,
        ran: (globalThis as { __inlineRan?: boolean }).__inlineRan === true,
      };
    });
    expect(outcome).toEqual({ violation: 'script-src-elem inline', ran: false });
    await context.close();
  });
});

/** The few DOM members the CSP probe uses (the tests' types have no DOM). */
interface InlineDocument {
  readonly head: { append(node: unknown): void };
  createElement(tag: 'script'): { textContent: string };
  addEventListener(
    type: 'securitypolicyviolation',
    listener: (event: { violatedDirective: string; blockedURI: string }) => void,
  ): void;
}
