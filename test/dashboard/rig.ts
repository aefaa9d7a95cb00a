import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createClientId } from '../../src/auth/client-ids.ts';
import type { Database } from '../../src/db/client.ts';
import { clientIds } from '../../src/db/schema.ts';
import { createRealClock, createTestApp, type TestApp } from '../app.ts';
import { launchChromium } from '../browser.ts';
import { listOwnerWebhook, loadListRows } from '../list-rows.ts';
import { freePort, ROOT } from '../process.ts';
import { testDispatcher } from '../workers.ts';

/**
 * What a dashboard test needs, real end to end: the service listening on a loopback port (the
 * API, the auth API and the dashboard on one origin, as `npm start` serves them, the dashboard
 * at /dashboard), the webhook dispatcher sending to receivers on loopback, and a headless
 * Chromium. Screenshots go to test-artifacts/dashboard.
 */

const ARTIFACTS = join(ROOT, 'test-artifacts', 'dashboard');

/**
 * How long one browser test may take: each signs in (a password hash) and drives a real
 * Chromium, and the suite runs them beside the rest on two cores; alone they take seconds.
 */
export const BROWSER_TEST_MS = 90_000;

/** The language the test browsers have. */
export const DASHBOARD_LOCALE = 'en-US';

/** The sizes every page is checked and pictured at: a laptop and a phone. */
export const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 375, height: 812 },
] as const;

export interface DashboardRig {
  readonly t: TestApp;
  readonly origin: string;
  readonly browser: Browser;
  /** `<origin>/dashboard<path>` in a fresh browser context (no cookie) of that size. */
  open(path: string, viewport?: { width: number; height: number }): Promise<Page>;
  /**
   * Likewise at 1280×800, with what `install` puts in the context first (the browser wallets
   * of test/pay-page/wallet.ts or tron-wallet.ts).
   */
  openWith<T>(
    path: string,
    install: (context: BrowserContext) => Promise<T>,
  ): Promise<{ readonly page: Page; readonly installed: T }>;
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

export async function startDashboardRig(): Promise<DashboardRig> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const t = await createTestApp({
    env: { BASE_URL: origin, PAY_URL: origin, ALLOW_LOCAL_WEBHOOKS: 'true' },
    clock: createRealClock(),
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  // Webhooks go out as the service's workers send them, to receivers on loopback.
  const dispatcher = testDispatcher(t);
  dispatcher.start(200);
  const browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  const contexts: BrowserContext[] = [];
  const context = async (viewport: { width: number; height: number }) => {
    // A browser's own language (headless Chromium under LANG=C says "en-US@posix", which
    // Intl refuses), as a merchant's browser has one.
    const made = await browser.newContext({ viewport, locale: DASHBOARD_LOCALE });
    contexts.push(made);
    return made;
  };
  const go = async (made: BrowserContext, path: string) => {
    const page = await made.newPage();
    await page.goto(`${origin}/dashboard${path}`);
    return page;
  };
  return {
    t,
    origin,
    browser,
    open: async (path, viewport = VIEWPORTS[0]) => go(await context(viewport), path),
    openWith: async (path, install) => {
      const made = await context(VIEWPORTS[0]);
      const installed = await install(made);
      return { page: await go(made, path), installed };
    },
    screenshot: async (page, name) => {
      const size = page.viewportSize();
      const suffix = size ? `-${size.width}x${size.height}` : '';
      await page.screenshot({ path: join(ARTIFACTS, `${name}${suffix}.png`), fullPage: true });
    },
    close: async () => {
      for (const context of contexts) await context.close();
      await browser.close();
      await dispatcher.stop();
      await t.close();
    },
  };
}

/**
 * Creates an account on the sign-in page, as a merchant would (e-mail and password), and waits
 * for Home.
 */
export async function registerInPage(page: Page, email: string, password: string): Promise<void> {
  await page.locator('[data-screen="sign-in"]').waitFor();
  await page.getByRole('button', { name: 'No account yet? Create one' }).click();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.locator('[data-screen="home"]').waitFor();
}

/**
 * Rows `from`..`to` of test/list-rows.ts (a request and its payment each, reference
 * `order-<i>`) for the account, made with a client ID of its own; the caller dates them.
 */
export async function loadPaymentsOf(
  db: Database,
  accountId: string,
  from: number,
  to: number,
): Promise<void> {
  const { clientId } = await createClientId(db, { accountId, label: 'Shop', allowedDomains: [] });
  const [client] = await db
    .select({ id: clientIds.id })
    .from(clientIds)
    .where(eq(clientIds.clientId, clientId));
  const webhookId = await listOwnerWebhook(db, accountId);
  await loadListRows(db, { accountId, clientIdRowId: client?.id ?? '', webhookId }, from, to);
}
