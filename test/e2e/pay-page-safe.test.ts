import type { Page } from 'playwright-core';
import { type Address, getAddress, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SafeTransaction } from '../../src/payments/safe/safe-transaction.ts';
import { accessibilityProblems, screen, sends, text } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import type { TestWalletSpec } from '../pay-page/wallet.ts';
import { createSafe, executeSafeTransaction, fundSafe, signSafeTransaction } from '../safe.ts';

/**
 * "Pay from a Safe" on the hosted page, in a real Chromium: the injected wallet is an owner of
 * a Safe running Safe 1.4.1's published code on the local chain. A 1-of-1 Safe is signed for
 * and executed from the page at once, and detection completes the link; a 2-of-3 Safe is
 * signed for, its Safe transaction recorded, and the page (reloaded too) waits for the Safe; a
 * payout created by a Safe is sent from it, the page giving its address.
 */

const TOKEN_ABI = parseAbi(['function balanceOf(address) view returns (uint256)']);
const PAYEE = 1;
/** Sends the Safes their USDC. */
const FUNDER = 12;

let rig: PayPageRig;
let usdc: Address;

beforeAll(async () => {
  rig = await startPayPageRig();
  usdc = getAddress(rig.local.chain.addresses.usdc);
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

const spec = (index: number): TestWalletSpec => ({
  name: 'Test Wallet',
  rdns: 'test.payreq.wallet',
  account: rig.wallet(index),
});

/** A Safe of these test wallets, holding 100 USDC. */
async function fundedSafe(owners: readonly number[], threshold: number): Promise<Address> {
  const chain = rig.local.chain;
  const safe = await createSafe(
    chain,
    owners.map((i) => rig.wallet(i).address),
    threshold,
  );
  await fundSafe(chain, rig.wallet(FUNDER), usdc, safe, 100_000_000n);
  return safe;
}

function usdcOf(owner: Address): Promise<bigint> {
  return rig.local.chain.client.readContract({
    address: usdc,
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });
}

/** Opens "Pay from a Safe", types the Safe's address (unless the page gives it) and signs. */
async function payFromSafe(page: Page, safe: string | null): Promise<void> {
  await screen(page, 'pending');
  await page.getByText('Pay from a Safe').click();
  if (safe !== null) await page.getByLabel('Safe address').fill(safe);
  expect(await accessibilityProblems(page)).toEqual([]);
  await page.getByRole('button', { name: 'Sign for the Safe with Test Wallet' }).click();
}

/** "2026-12-06 14:05 UTC", as the page shows a deadline in Unix seconds. */
function utc(seconds: number): string {
  const iso = new Date(seconds * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

describe('paying from a Safe on the hosted page', () => {
  it('signs for a 1-of-1 Safe and executes it at once: the payee gets the exact amount, the link completes', async () => {
    const safe = await fundedSafe([6], 1);
    const token = await rig.link([{ currency: 'USDC', amount: '12.5', payee: PAYEE }]);
    const payee = rig.wallet(PAYEE).address;
    const [payeeBefore, safeBefore] = [await usdcOf(payee), await usdcOf(safe)];
    const { page, wallets, context } = await rig.open(token, [spec(6)]);
    const [wallet] = wallets;

    await payFromSafe(page, safe);
    await screen(page, 'completed');
    expect(await text(page, 'h1')).toBe('Paid 12.5 USDC');
    await rig.screenshot(page, 'safe-paid');
    // One signature, one transaction: the owner's execTransaction, which paid the gas.
    expect(wallet?.signed).toHaveLength(1);
    expect(sends(wallet)).toBe(1);
    expect(await usdcOf(payee)).toBe(payeeBefore + 12_500_000n);
    expect(await usdcOf(safe)).toBe(safeBefore - 12_500_000n);
    const link = await rig.get(`/v2/secure-payments/${token}`);
    expect(link.status).toBe(409);
    expect(rig.asked(`${token}/pay?isSafe=true&wallet=`)).toBe(1);
    await context.close();
  });

  it('sends a payout from the Safe that created it, its address given and fixed', async () => {
    const safe = await fundedSafe([10], 1);
    const token = await rig.payout({
      currency: 'USDC',
      amount: '4.5',
      payee: PAYEE,
      creator: safe,
    });
    const payee = rig.wallet(PAYEE).address;
    const before = await usdcOf(payee);
    const { page, wallets, context } = await rig.open(token, [spec(10)]);
    await screen(page, 'pending');
    const field = page.getByLabel('Safe address');
    expect(await field.inputValue()).toBe(safe);
    expect(await field.getAttribute('readonly')).toBe('');
    await payFromSafe(page, null);
    await screen(page, 'completed');
    expect(sends(wallets[0])).toBe(1);
    expect(await usdcOf(payee)).toBe(before + 4_500_000n);
    await context.close();
  });

  it('signs for a 2-of-3 Safe, records its Safe transaction, and waits for the Safe with the deadline, after a reload too, until the Safe pays', async () => {
    const safe = await fundedSafe([7, 8, 9], 2);
    const token = await rig.link([{ currency: 'USDC', amount: '3.25', payee: PAYEE }]);
    const payee = rig.wallet(PAYEE).address;
    const payeeBefore = await usdcOf(payee);
    const { page, wallets, context } = await rig.open(token, [spec(8)]);
    const [wallet] = wallets;
    // The Safe transaction the page signed, as /pay answered it: the other owners sign it too.
    const answered = page.waitForResponse((r) => r.url().includes('/pay?isSafe=true'));

    await payFromSafe(page, safe);
    const safeTx = ((await (await answered).json()) as { safeTransaction: SafeTransaction })
      .safeTransaction;
    await screen(page, 'safe-pending');
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(await text(page, 'h1')).toBe('Waiting for the Safe');
    expect(await text(page, '[role="status"]')).toBe(
      'You signed the Safe transaction. 1 more owner of the Safe must sign the same transaction, then one of them executes it.',
    );
    expect(await text(page, '[data-field="signatures"]')).toBe('1 of 2');
    expect(await text(page, '[data-field="safe"]')).toBe(safe);
    await rig.screenshot(page, 'safe-pending');
    expect(wallet?.signed).toHaveLength(1);
    expect(sends(wallet)).toBe(0);

    // The link is locked on the Safe transaction the page signed, until its deadline.
    const locked = await rig.get(`/v2/secure-payments/${token}`);
    expect(locked.status).toBe(423);
    const [status] = locked.body.requestStatuses as {
      safeTxHash: string;
      chainId: number;
      safePaymentDeadline: number;
    }[];
    if (!status) throw new Error('no request status');
    expect(status.chainId).toBe(8453);
    expect(status.safePaymentDeadline * 1000).toBeGreaterThan(Date.now());
    expect(await text(page, '[data-field="safe-tx-hash"]')).toBe(status.safeTxHash);
    expect(await text(page, '[data-field="deadline"]')).toBe(utc(status.safePaymentDeadline));

    // Loaded again, the page reads the 423 as the same wait, not as an error.
    await page.reload();
    await screen(page, 'safe-pending');
    expect(await text(page, 'h1')).toBe('Waiting for the Safe');
    expect(await text(page, '[data-field="safe-tx-hash"]')).toBe(status.safeTxHash);
    expect(await text(page, '[data-field="deadline"]')).toBe(utc(status.safePaymentDeadline));
    expect(await page.locator('[data-screen="error"]').count()).toBe(0);
    expect(await usdcOf(payee)).toBe(payeeBefore);

    // A second owner signs the same Safe transaction and a third executes it: the page, still
    // waiting, shows the receipt once detection has confirmed the payment.
    expect(safeTx.safeTxHash).toBe(status.safeTxHash);
    const signedHere = wallet?.signed[0];
    if (!signedHere) throw new Error('the page signed nothing');
    await executeSafeTransaction(rig.local.chain, rig.wallet(7), safeTx, [
      { signer: rig.wallet(8).address, signature: signedHere },
      await signSafeTransaction(rig.wallet(9), safeTx),
    ]);
    await screen(page, 'completed');
    expect(await text(page, 'h1')).toBe('Paid 3.25 USDC');
    expect(await usdcOf(payee)).toBe(payeeBefore + 3_250_000n);
    await context.close();
  });

  it('says so, and asks for no signature, when the connected wallet is no owner of the Safe', async () => {
    const safe = await fundedSafe([9], 1);
    const token = await rig.link([{ currency: 'USDC', amount: '1', payee: PAYEE }]);
    const { page, wallets, context } = await rig.open(token, [spec(10)]);
    await payFromSafe(page, safe);
    await screen(page, 'pending');
    expect(await text(page, '.problem')).toBe(
      `The connected account ${rig.wallet(10).address} is not an owner of the Safe ${safe}. Connect an owner’s account, or pay from another wallet.`,
    );
    expect(wallets[0]?.signed).toHaveLength(0);
    expect(sends(wallets[0])).toBe(0);
    await context.close();
  });
});
