import { eq } from 'drizzle-orm';
import { type Hex, hexToString } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/db/schema.ts';
import { BROWSER_TEST_MS, type DashboardRig, startDashboardRig } from '../dashboard/rig.ts';
import { accessibilityProblems, screen, text } from '../pay-page/page.ts';
import { installTestTronLink } from '../pay-page/tron-wallet.ts';
import { installTestWallets, type TestWalletSpec } from '../pay-page/wallet.ts';

/**
 * The dashboard in a real Chromium, signing in with a browser wallet announced through
 * EIP-6963: the merchant declines once and is told nothing changed, then signs the auth API's
 * Sign-In with Ethereum message (`personal_sign`, bound to this origin) and lands on Home as
 * the wallet's account; signing in again reaches the same account. TronLink likewise, signing
 * the message with `signMessageV2` for its base58 address. A browser without a wallet is
 * pointed to e-mail.
 */

let rig: DashboardRig;
const account = privateKeyToAccount(generatePrivateKey());
const WALLET: TestWalletSpec = { name: 'Test Wallet', rdns: 'test.payreq.wallet', account };

beforeAll(async () => {
  rig = await startDashboardRig();
}, 120_000);
afterAll(async () => {
  await rig?.close();
});

describe('the dashboard, signing in with a wallet', { timeout: BROWSER_TEST_MS }, () => {
  it('says a refusal changed nothing, then signs in with the SIWE message the wallet signs', async () => {
    const { page, installed } = await rig.openWith('/', (context) =>
      installTestWallets(context, null, [WALLET]),
    );
    const [wallet] = installed;
    if (!wallet) throw new Error('no test wallet');
    const button = page.getByRole('button', { name: 'Sign in with Test Wallet' });
    await button.waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'sign-in-wallets');

    wallet.declineNext = 1;
    await button.click();
    expect(await text(page, '[role="alert"]')).toBe(
      'You declined to sign in, so nothing changed. You can try again, with this wallet or another.',
    );
    expect(await rig.t.db.$count(users, eq(users.walletAddress, account.address))).toBe(0);

    await button.click();
    await screen(page, 'home');
    expect(await text(page, '[data-field="who"]')).toBe(account.address);
    expect(await text(page, '[data-field="payments-count"]')).toBe('0');
    const signs = wallet.calls.filter((call) => call.method === 'personal_sign');
    expect(signs).toHaveLength(2);
    const [data] = (signs[1]?.params ?? []) as [Hex];
    const message = hexToString(data);
    expect(message).toContain(
      `${new URL(rig.origin).host} wants you to sign in with your Ethereum account:\n${account.address}`,
    );
    expect(message).toContain(`URI: ${rig.origin}`);
    expect(wallet.signedMessages).toHaveLength(1);
    expect(await page.evaluate('[document.cookie, localStorage.length]')).toEqual(['', 0]);
  });

  it('reaches the same account on the next sign-in', async () => {
    const [first] = await rig.t.db
      .select({ accountId: users.accountId })
      .from(users)
      .where(eq(users.walletAddress, account.address));
    const { page } = await rig.openWith('/', (context) =>
      installTestWallets(context, null, [WALLET]),
    );
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    await screen(page, 'home');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await screen(page, 'sign-in');
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    await screen(page, 'home');
    const all = await rig.t.db
      .select({ accountId: users.accountId })
      .from(users)
      .where(eq(users.walletAddress, account.address));
    expect(all).toEqual([{ accountId: first?.accountId }]);
  });

  it('signs in with TronLink as its base58 address, after a refusal', async () => {
    const tronAccount = privateKeyToAccount(generatePrivateKey());
    const { page, installed: tronLink } = await rig.openWith('/', (context) =>
      installTestTronLink(context, { account: tronAccount }),
    );
    const button = page.getByRole('button', { name: 'Sign in with TronLink' });
    tronLink.declineNext = 1;
    await button.click();
    expect(await text(page, '[role="alert"]')).toBe(
      'You declined to sign in, so nothing changed. You can try again, with this wallet or another.',
    );
    await button.click();
    await screen(page, 'home');
    expect(await text(page, '[data-field="who"]')).toBe(tronLink.address);
    expect(tronLink.signedMessages).toHaveLength(1);
    expect(tronLink.signedMessages[0]).toContain(
      `wants you to sign in with your Ethereum account:\n${tronLink.address}\n`,
    );
    const [user] = await rig.t.db
      .select({ walletAddress: users.walletAddress })
      .from(users)
      .where(eq(users.walletAddress, tronLink.address));
    expect(user).toEqual({ walletAddress: tronLink.address });
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('points a browser without a wallet to e-mail', async () => {
    const page = await rig.open('/');
    expect(await text(page, '[data-field="no-wallet"]')).toBe(
      'No browser wallet found: install one to sign in with it, or use your e-mail.',
    );
  });
});
