import type { Page } from 'playwright-core';
import { type Address, getAddress, type Hex, parseUnits, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeTracker } from '../../src/secure-payments/bridge-tracker.ts';
import { type BridgeWorld, balanceOf, startBridgeWorld, until } from '../bridge-world.ts';
import { accessibilityProblems, screen, sends, text } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import type { TestWallet, TestWalletSpec } from '../pay-page/wallet.ts';
import { testBridgeTracker } from '../workers.ts';

/**
 * A payer pays a Base link from another chain on the hosted page, in a real Chromium: the page
 * lists where the payer's wallet holds tokens (`paymentOptions`), the payer picks USDT on
 * Arbitrum, reads what the bridge takes, and pays; the wallet switches to Arbitrum, approves
 * and deposits into the local Across SpokePool, the page records the deposit as the link's
 * intent and follows the transfer; the relayer fills it on Base, where the payee is paid
 * through the fee proxy, detection completes the link and the page shows it paid. Two local
 * chains with the real contracts, the fake routing aggregator over real HTTP, the bridge
 * relayer (test/bridge-world.ts) and the app's bridge tracker.
 */

const PAYEE = 1;
const ARBITRUM_ID = 42161;

let world: BridgeWorld;
let rig: PayPageRig;
let tracker: BridgeTracker;

beforeAll(async () => {
  // The rig's payees and payers are wallets up to 15 on both chains.
  world = await startBridgeWorld({ walletCount: 16 });
  rig = await startPayPageRig({
    world: {
      base: world.base,
      env: world.env,
      transports: world.transports,
      walletChains: [world.arbitrum.chain],
    },
  });
  tracker = testBridgeTracker(rig.t);
  tracker.start(200);
}, 180_000);
afterAll(async () => {
  await tracker?.stop();
  await rig?.close();
  await world?.close();
});

const spec = (index: number): TestWalletSpec => ({
  name: 'Test Wallet',
  rdns: 'test.payreq.wallet',
  account: rig.wallet(index),
});

function usdtOnArbitrum(owner: Address): Promise<bigint> {
  return balanceOf(world.arbitrum, getAddress(world.arbitrum.chain.addresses.usdt), owner);
}

/** From the summary to the route of USDT on Arbitrum, through the payer's sources. */
async function chooseArbitrumUsdt(page: Page): Promise<void> {
  await screen(page, 'pending');
  await page.locator('details.crosschain summary').click();
  // Past the wallet discovery's late check for window.ethereum (400 ms): the wallet buttons
  // and the opened section stay as they are, not rendered afresh under the payer's pointer.
  const section = await page.locator('details.crosschain').elementHandle();
  await page.waitForTimeout(600);
  expect(await section?.evaluate((el) => el.isConnected && el.hasAttribute('open'))).toBe(true);
  await page.getByRole('button', { name: 'Choose a source in Test Wallet' }).click();
  await screen(page, 'sources');
  // Only other chains' tokens: the wallet buttons pay on Base.
  expect(
    await page
      .locator('[data-source]')
      .evaluateAll((all) => all.map((b) => b.dataset.source).sort()),
  ).toEqual(['ARBITRUM:USDC', 'ARBITRUM:USDT']);
  const source = page.locator('[data-source="ARBITRUM:USDT"]');
  expect((await source.textContent())?.trim()).toBe('Pay with USDT on Arbitrum One');
  await rig.screenshot(page, 'crosschain-sources');
  expect(await accessibilityProblems(page)).toEqual([]);
  await source.click();
  await screen(page, 'route');
}

/** The calls the wallet sent, decoded as far as the test reads them: where each went. */
function sentTo(wallet: TestWallet): Hex[] {
  return wallet.calls
    .filter((c) => c.method === 'eth_sendTransaction')
    .map((c) => (c.params as { to: Hex }[])[0]?.to ?? '0x');
}

describe('paying a link from another chain on the hosted page', () => {
  it('pays a 25 USDC Base link with USDT from Arbitrum, picked on the page, to the payee exactly', async () => {
    const token = await rig.link([{ currency: 'USDC', amount: '25', payee: PAYEE }]);
    const payee = rig.wallet(PAYEE).address;
    const payer = rig.wallet(11).address;
    const before = { payee: await rig.balance('USDC', payee), payer: await usdtOnArbitrum(payer) };
    const { page, wallets, context } = await rig.open(token, [spec(11)]);
    const [wallet] = wallets;
    if (!wallet) throw new Error('no wallet');

    await chooseArbitrumUsdt(page);
    // What the bridge takes, before anything is sent: 10 bps and 0.5 USDT (the fake's price).
    const sourceAmount = await text(page, '[data-field="source-amount"]');
    expect(sourceAmount).toMatch(/^25\.5\d* USDT on Arbitrum One$/);
    expect(await text(page, '[data-field="bridge-fee"]')).toMatch(/^0\.5\d* USDT$/);
    expect(await text(page, '[data-field="receives"]')).toBe('25 USDC on Base');
    expect(await text(page, '[data-field="quote-expires"]')).toMatch(
      /^(1[01]\d seconds|2 minutes)$/,
    );
    await rig.screenshot(page, 'crosschain-route');
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();

    await screen(page, 'completed');
    expect(await text(page, 'h1')).toBe('Paid 25 USDC');
    // The wallet moved to Arbitrum, approved the SpokePool and deposited into it.
    const switched = wallet.calls.filter((c) => c.method === 'wallet_switchEthereumChain');
    expect(switched.map((c) => Number((c.params as { chainId: string }[])[0]?.chainId))).toEqual([
      ARBITRUM_ID,
    ]);
    expect(sends(wallet)).toBe(2);
    const spokePool = getAddress(world.arbitrum.chain.addresses.spokePool);
    expect(sentTo(wallet).map((to) => getAddress(to))).toEqual([
      getAddress(world.arbitrum.chain.addresses.usdt),
      spokePool,
    ]);
    // The payee got the link's amount to the base unit; the payer paid what the page said.
    expect((await rig.balance('USDC', payee)) - before.payee).toBe(25_000_000n);
    const spent = parseUnits(sourceAmount.split(' ')[0] ?? '', 6);
    expect(before.payer - (await usdtOnArbitrum(payer))).toBe(spent);
    // The deposit was recorded on the link, and the tracker followed it to its end.
    const deposit = wallet.sent[1];
    const row = await tracker.round().then(() => rig.get(`/v2/secure-payments/${token}`));
    expect(row.status).toBe(409);
    const filled = world.relayer.deposits().find((d) => d.depositTxHash === deposit);
    expect(filled?.status).toBe('filled');
    await rig.screenshot(page, 'crosschain-paid');
    // The merchant's funnel names the chain the payer paid from, and the bridge call sent.
    const events = await until(
      () =>
        rig.receiver.received
          .map((r) => r.body)
          .filter((b) => b.event === 'secure_payment.user_event' && b.securePaymentToken === token),
      (found) => found.length >= 3,
    );
    expect(events.map((e) => e.userEvent).sort()).toEqual([
      'payment_approved_in_wallet',
      'payment_sent_to_wallet',
      'wallet_connected',
    ]);
    for (const event of events) {
      expect(event.properties).toMatchObject({ selected_source_chain: 'arbitrum-one' });
    }
    expect(
      events.find((e) => e.userEvent === 'payment_approved_in_wallet')?.properties,
    ).toMatchObject({
      payment_submission_id: deposit,
      payment_submission_id_type: 'transaction_hash',
    });
    await context.close();
  });

  it('refreshes a quote that expired while the payer approved, and never sends the stale one', async () => {
    // Quotes that hold 20 s: the page sends none with less than 10 s left, so this one is
    // sent from its route screen for 10 s, and is past sending 20.5 s after it was asked for.
    world.fake.setQuoteLifetime(20);
    const token = await rig.link([{ currency: 'USDC', amount: '3', payee: PAYEE }]);
    const payee = rig.wallet(PAYEE).address;
    const before = await rig.balance('USDC', payee);
    const { page, wallets, context } = await rig.open(token, [spec(12)]);
    const [wallet] = wallets;
    if (!wallet) throw new Error('no wallet');
    const asked = Date.now();
    await chooseArbitrumUsdt(page);
    // The payer reads the approval in the wallet until the quote is past sending.
    wallet.hold = new Promise<void>((resolve) =>
      setTimeout(
        () => {
          world.fake.setQuoteLifetime(600);
          resolve();
        },
        asked + 20_500 - Date.now(),
      ),
    );
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await screen(page, 'completed');
    wallet.hold = null;
    expect((await rig.balance('USDC', payee)) - before).toBe(3_000_000n);
    // One route, its step refreshed once: the deposit sent is the refreshed quote's.
    expect(rig.asked(`${token}/pay?`)).toBe(1);
    expect(rig.asked(`${token}/refresh-step-transaction`)).toBe(1);
    expect(sends(wallet)).toBe(2);
    const deposit = world.relayer.deposits().find((d) => d.depositTxHash === wallet.sent[1]);
    expect(deposit?.status).toBe('filled');
    expect(deposit?.relayData.fillDeadline).toBeGreaterThan(Math.floor(asked / 1000) + 500);
    await context.close();
  });

  it('says so when the transfer fails, and the link is payable again', {
    timeout: 60_000,
  }, async () => {
    world.relayer.pause();
    const token = await rig.link([{ currency: 'USDC', amount: '1.5', payee: PAYEE }]);
    const { page, wallets, context } = await rig.open(token, [spec(14)]);
    const [wallet] = wallets;
    if (!wallet) throw new Error('no wallet');
    await chooseArbitrumUsdt(page);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await screen(page, 'transfer');
    // The link opened again in this browser meanwhile: the payment on its way, not due again.
    const reopened = await context.newPage();
    await reopened.goto(page.url());
    await screen(reopened, 'confirming');
    const depositTx = wallet.sent[1];
    const seen = await deposit(depositTx);
    // Never filled here; the aggregator reports the transfer failed.
    world.relayer.hold(ARBITRUM_ID, seen.relayData.depositId);
    world.relayer.resume();
    world.fake.setTransfer(seen.depositTxHash, { status: 'FAILED' });

    await screen(page, 'transfer-failed');
    expect(await text(page, '[data-field="transfer-stage"]')).toBe(
      'The bridge could not deliver your payment, so the link was not paid. The link can be paid again.',
    );
    expect((await rig.get(`/v2/secure-payments/${token}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Back to the payment' }).click();
    await screen(page, 'pending');
    // The page opened again says so too, and offers the payment again.
    await screen(reopened, 'error');
    expect(await text(reopened, '[role="alert"]')).toMatch(
      /^The bridge could not deliver your payment from the other chain/,
    );
    await reopened.getByRole('button', { name: 'Try again' }).click();
    await screen(reopened, 'pending');
    await context.close();
  });

  // Last: it moves both chains' clocks past the deposit's deadline.
  it('says so when the bridge returns the payment, and the link is payable again', async () => {
    world.relayer.pause();
    const token = await rig.link([{ currency: 'USDC', amount: '2', payee: PAYEE }]);
    const payer = rig.wallet(13).address;
    const before = await usdtOnArbitrum(payer);
    const { page, wallets, context } = await rig.open(token, [spec(13)]);
    const [wallet] = wallets;
    if (!wallet) throw new Error('no wallet');
    await chooseArbitrumUsdt(page);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await screen(page, 'transfer');
    expect(await text(page, '[data-field="transfer-stage"]')).toMatch(/^Your payment left/);
    await rig.screenshot(page, 'crosschain-transfer');
    const depositTx = wallet.sent[1];
    const seen = await deposit(depositTx);
    world.relayer.hold(ARBITRUM_ID, seen.relayData.depositId);
    world.relayer.resume();
    for (const chain of [world.arbitrum.chain, rig.local.chain]) {
      await chain.provider.request({ method: 'evm_increaseTime', params: [toHex(601)] });
      await chain.provider.request({ method: 'evm_mine' });
    }
    world.relayer.wake();

    await screen(page, 'transfer-refunded');
    expect(await text(page, '[data-field="transfer-stage"]')).toBe(
      'The bridge could not deliver your payment and returned the tokens to your wallet. The link was not paid and can be paid again.',
    );
    await rig.screenshot(page, 'crosschain-refunded');
    expect(await usdtOnArbitrum(payer)).toBe(before);
    await page.getByRole('button', { name: 'Back to the payment' }).click();
    await screen(page, 'pending');
    await context.close();
  });
});

/** The relayer's view of the deposit sent in `txHash`, once it has seen it. */
async function deposit(txHash: Hex | undefined) {
  const seen = await until(
    () => world.relayer.deposits().find((d) => d.depositTxHash === txHash),
    (found) => found !== undefined,
  );
  if (!seen) throw new Error(`the relayer did not see the deposit ${txHash}`);
  return seen;
}
