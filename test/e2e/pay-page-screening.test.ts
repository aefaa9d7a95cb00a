import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeScreening,
  startFakeScreening,
} from '../../src/sandbox/screening/fake-screening.ts';
import { accessibilityProblems, screen, sends, text } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import type { TestWalletSpec } from '../pay-page/wallet.ts';

/**
 * A payer whose wallet a link refuses sees, in a real Chromium, a screen that names the wallet
 * and says why in plain words, with no calldata sent to the wallet: off the allowlist,
 * rejected by screening, or screening down (retry). A listed wallet pays as any other.
 */

let rig: PayPageRig;
let fake: FakeScreening;

beforeAll(async () => {
  fake = await startFakeScreening();
  rig = await startPayPageRig({
    env: {
      SCREENING_HYPERNATIVE_URL: fake.url,
      SCREENING_MERKLESCIENCE_URL: fake.url,
      SCREENING_TIMEOUT_MS: '500',
      SCREENING_CACHE_SECONDS: '0',
    },
  });
}, 180_000);
afterAll(async () => {
  await rig?.close();
  await fake?.close();
});
beforeEach(() => fake.recover());

const PAYEE = 1;
const spec = (index: number): TestWalletSpec => ({
  name: 'Test Wallet',
  rdns: 'test.payreq.wallet',
  account: rig.wallet(index),
});

async function refused(accessPolicy: object, payer: number, screenName: string): Promise<Page> {
  const token = await rig.link([{ currency: 'USDC', amount: '1', payee: PAYEE }], { accessPolicy });
  const { page, wallets } = await rig.open(token, [spec(payer)]);
  await screen(page, 'pending');
  await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
  await screen(page, screenName);
  expect(await text(page, '[data-field="wallet"]')).toBe(rig.wallet(payer).address);
  expect(sends(wallets[0])).toBe(0);
  expect(await page.locator('[role="alert"]').count()).toBe(1);
  expect(await accessibilityProblems(page)).toEqual([]);
  await rig.screenshot(page, screenName);
  return page;
}

describe('a refused payer on the hosted page', () => {
  it('pays from a wallet on the link’s allowlist', async () => {
    const payer = rig.wallet(8).address;
    const token = await rig.link([{ currency: 'USDC', amount: '1', payee: PAYEE }], {
      accessPolicy: { allowedPayerAddresses: [payer.toLowerCase()] },
    });
    const { page, context } = await rig.open(token, [spec(8)]);
    await screen(page, 'pending');
    await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
    await screen(page, 'completed');
    await context.close();
  });

  it('tells a wallet off the allowlist that it cannot pay, and why', async () => {
    const page = await refused(
      { allowedPayerAddresses: [rig.wallet(8).address] },
      9,
      'payer-not-allowed',
    );
    expect(await text(page, 'h1')).toBe('This wallet cannot pay this link');
    expect(await text(page, '[role="alert"]')).toContain('only from wallets it listed');
    await page.context().close();
  });

  it('tells a sanctioned wallet it did not pass screening', async () => {
    fake.sanction(rig.wallet(10).address);
    const page = await refused(
      { mode: 'kyt_all_wallets', screeningProvider: 'hypernative' },
      10,
      'payer-rejected',
    );
    expect(await text(page, '[role="alert"]')).toContain('did not pass');
    await page.context().close();
  });

  it('asks to retry later while screening is down, and the payer goes back to the link', async () => {
    fake.fail('hypernative', { kind: 'error', status: 503 });
    const page = await refused(
      { mode: 'kyt_all_wallets', screeningProvider: 'hypernative' },
      11,
      'screening-unavailable',
    );
    expect(await text(page, 'h1')).toBe('Screening is unavailable right now');
    fake.recover();
    await page.getByRole('button', { name: 'Try again' }).click();
    await screen(page, 'pending');
    await page.context().close();
  });
});
