import type { BrowserContext, Page } from 'playwright-core';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../packages/client/src/verify.ts';
import { LINK_INTENT_TTL_MS } from '../../src/orchestrators/link-intents.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import { REFERENCE_HEADERS } from '../../src/webhooks/signature.ts';
import { accessibilityProblems, screen, text } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import { installTestWallets, type TestWallet } from '../pay-page/wallet.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';

/**
 * A link intent's page (`<PAY_URL>/link/<accessToken>`) in a real Chromium with an injected
 * EIP-6963 wallet: a platform invites a merchant, the merchant opens the URL, signs in with its
 * wallet (SIWE, `personal_sign`), reads who asks and what it may do in the platform's colors,
 * picks the token it is paid in and accepts; its new client ID shows, and the platform's
 * receiver (a real HTTP server on loopback) gets `client_id.linked`, signed with its secret.
 * The same URL then says the invitation was used; an expired or unknown one says so too.
 */

let rig: PayPageRig;
let receiver: Receiver;
let platform: { orchestratorId: string; orchestratorKey: string };
let secret: string;
const opened: BrowserContext[] = [];

/** Sandbox wallets of merchants: each signs in as an account of its own. */
const MERCHANT = 7;
const LATE = 8;
const LOST = 9;
const ACTION_COLOR = '#1d4ed8';

beforeAll(async () => {
  rig = await startPayPageRig();
  receiver = await startReceiver();
  platform = await createOrchestrator(rig.t.db, 'Acme Platform');
  const headers = { 'x-orchestrator-key': platform.orchestratorKey };
  const hook = await rig.t.app.inject({
    method: 'POST',
    url: '/v2/orchestrators/webhooks',
    headers,
    payload: { url: receiver.url },
  });
  expect(hook.statusCode, hook.body).toBe(201);
  secret = hook.json().secret;
  const branding = await rig.t.app.inject({
    method: 'POST',
    url: '/v2/orchestrators/branding',
    headers,
    payload: { primaryActionColor: ACTION_COLOR },
  });
  expect(branding.statusCode, branding.body).toBe(201);
}, 180_000);
afterAll(async () => {
  for (const context of opened) await context.close();
  await receiver?.close();
  await rig?.close();
});

async function invite(body: Record<string, unknown>) {
  const res = await rig.t.app.inject({
    method: 'POST',
    url: '/v2/orchestrators/client-id-link-intents',
    headers: { 'x-orchestrator-key': platform.orchestratorKey },
    payload: body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ url: string; intent: { id: string; accessToken: string } }>();
}

/** `url` in a fresh browser context whose one wallet holds sandbox wallet `index`. */
async function openAs(url: string, index: number): Promise<{ page: Page; wallet: TestWallet }> {
  const context = await rig.browser.newContext({ viewport: { width: 1280, height: 800 } });
  opened.push(context);
  const [wallet] = await installTestWallets(context, rig.local.chain, [
    { name: 'Test Wallet', rdns: 'test.payreq.wallet', account: rig.wallet(index) },
  ]);
  if (!wallet) throw new Error('no test wallet');
  const page = await context.newPage();
  await page.goto(url);
  return { page, wallet };
}

async function signIn(page: Page): Promise<void> {
  await screen(page, 'intent-sign-in');
  await page.locator('button[data-wallet="test.payreq.wallet"]').click();
}

describe('a link intent’s page', () => {
  it('links a new client ID of the merchant’s; the platform hears it, signed', async () => {
    const created = await invite({
      clientIdName: 'Acme on Platform',
      domains: ['https://acme.example'],
      externalId: 'acme-42',
      kyt: { providers: [{ provider: 'hypernative' }, { provider: 'merklescience' }] },
    });
    const { accessToken } = created.intent;
    expect(created.url).toBe(`${rig.origin}/link/${accessToken}`);

    const { page, wallet } = await openAs(created.url, MERCHANT);
    expect(await page.title()).toBe('Link your account');
    await signIn(page);
    await screen(page, 'intent');
    expect(await text(page, 'h1')).toBe('Acme Platform asks to link your account');
    expect(await text(page, '[data-field="client-id-name"]')).toBe('Acme on Platform');
    expect(await text(page, '[data-field="domains"]')).toBe('https://acme.example');
    expect(await text(page, '[data-field="kyt"]')).toBe(
      'Hypernative, then Merkle Science if it fails',
    );
    expect(await text(page, '[data-field="reference"]')).toBe('acme-42');
    expect(await text(page, '[data-field="expires"]')).toBe('1 day 23 hours');
    // The platform's colors.
    expect(await page.evaluate("document.documentElement.style.getPropertyValue('--action')")).toBe(
      ACTION_COLOR,
    );
    // No destination yet: the merchant's wallet, in the token it picks.
    const merchant = rig.wallet(MERCHANT).address;
    expect(await text(page, '[data-field="wallet"]')).toBe(merchant);
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'link-intent');
    // The wallet is on Base: its first token is offered first.
    expect(
      await page.evaluate("document.querySelector('#intent-currency').selectedOptions[0].text"),
    ).toBe('USDC on Base');
    await page.locator('button[data-action="accept"]').click();

    await screen(page, 'linked');
    const clientId = await text(page, '[data-field="client-id"]');
    expect(clientId).toMatch(/^cli_/);
    expect(await text(page, '[data-field="label"]')).toBe('Acme on Platform');
    const destinationId = await text(page, '[data-field="destination"]');
    expect(destinationId.startsWith(`${merchant}@eip155:8453#`)).toBe(true);
    // One signature, the sign-in's; no transaction.
    expect(wallet.signedMessages).toHaveLength(1);
    expect(wallet.sent).toEqual([]);

    const [delivery] = await receiver.waitFor(1, 30_000);
    if (!delivery) throw new Error('no delivery');
    expect(verifyWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, secret })).toEqual(
      { ok: true, deliveryId: expect.any(String), version: 'v2' },
    );
    // A receiver written for the reference reads only its header family: that verifies too.
    const reference = {
      [REFERENCE_HEADERS.signature]: delivery.headers[REFERENCE_HEADERS.signature],
    };
    expect(verifyWebhook({ rawBody: delivery.rawBody, headers: reference, secret })).toMatchObject({
      ok: true,
      version: 'v1',
    });
    expect(delivery.body).toEqual({
      event: 'client_id.linked',
      clientId,
      orchestratorId: platform.orchestratorId,
      linkId: expect.any(String),
      intentId: created.intent.id,
      externalId: 'acme-42',
      destinationId,
      destinationWalletAddress: getAddress(merchant),
      chain: 'base',
      currency: 'USDC',
      timestamp: expect.any(String),
    });
    const links = await rig.t.app.inject({
      method: 'GET',
      url: '/v2/orchestrators/client-ids',
      headers: { 'x-orchestrator-key': platform.orchestratorKey },
    });
    expect(links.json().links).toContainEqual({ clientId, status: 'active' });

    // The same URL again, from another browser: signed in, the merchant is told it was used.
    const again = await openAs(created.url, MERCHANT);
    await signIn(again.page);
    await screen(again.page, 'intent-used');
    expect(await text(again.page, 'h1')).toBe('This invitation has been used');
    expect(receiver.received).toHaveLength(1);
  });

  it('keeps the destination a merchant already has', async () => {
    const first = await invite({ clientIdName: 'Late shop' });
    const { page: setUp } = await openAs(first.url, LATE);
    await signIn(setUp);
    await screen(setUp, 'intent');
    await setUp.locator('#intent-currency').selectOption({ label: 'DAI on Base' });
    await setUp.locator('button[data-action="accept"]').click();
    await screen(setUp, 'linked');
    const destinationId = await text(setUp, '[data-field="destination"]');

    const second = await invite({ clientIdName: 'Late shop, again' });
    const { page } = await openAs(second.url, LATE);
    await signIn(page);
    await screen(page, 'intent');
    expect(await text(page, '[data-field="token"]')).toBe('in DAI on Base');
    expect(await page.locator('#intent-currency').count()).toBe(0);
    await page.locator('button[data-action="accept"]').click();
    await screen(page, 'linked');
    expect(await text(page, '[data-field="destination"]')).toBe(destinationId);
    expect(await text(page, '[data-field="label"]')).toBe('Late shop, again');
  });

  it('says so when the merchant declines to sign in, and offers the wallets again', async () => {
    const created = await invite({ clientIdName: 'Declined' });
    const { page, wallet } = await openAs(created.url, LOST);
    wallet.declineNext = 1;
    await signIn(page);
    await page.locator('[data-screen="intent-sign-in"] .problem').waitFor({ timeout: 30_000 });
    expect(await text(page, '.problem')).toBe(
      'You declined to sign in, so nothing changed. You can try again, with this wallet or another.',
    );
    await signIn(page);
    await screen(page, 'intent');
  });

  it('says an invitation past its two days has expired, and links nothing', async () => {
    // Made two days and a minute ago, on the app's clock.
    rig.t.clock.advance(-LINK_INTENT_TTL_MS - 60_000);
    let created: Awaited<ReturnType<typeof invite>>;
    try {
      created = await invite({ clientIdName: 'Too late' });
    } finally {
      rig.t.clock.advance(LINK_INTENT_TTL_MS + 60_000);
    }
    const { page } = await openAs(created.url, LOST);
    await signIn(page);
    await screen(page, 'intent-expired');
    expect(await text(page, 'h1')).toBe('This invitation has expired');
  });

  it('says an unknown invitation was not found, asking no wallet for a malformed one', async () => {
    const unknown = await openAs(`${rig.origin}/link/lki_${'A'.repeat(43)}`, LOST);
    await signIn(unknown.page);
    await screen(unknown.page, 'intent-not_found');
    expect(await text(unknown.page, 'h1')).toBe('Invitation not found');

    const malformed = await openAs(`${rig.origin}/link/nonsense`, LOST);
    await screen(malformed.page, 'intent-not_found');
    expect(malformed.wallet.calls).toEqual([]);
  });
});
