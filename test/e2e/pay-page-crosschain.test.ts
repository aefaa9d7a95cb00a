import type { Page } from 'playwright-core';
import { type Address, getAddress, type Hex, parseAbi, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalBridge, startLocalBridge } from '../local-bridge.ts';
import { screen, sends, text } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import type { TestWallet, TestWalletSpec } from '../pay-page/wallet.ts';

/**
 * A payer pays a Base link from another chain on the hosted page, in a real Chromium: the page
 * lists where the payer's wallet holds tokens (`paymentOptions`), the payer picks USDT on
 * Arbitrum, reads what the bridge takes, and pays; the wallet switches to Arbitrum, approves
 * and deposits into the local Across SpokePool, the page records the deposit as the link's
 * intent and follows the transfer; the relayer fills it on Base, where the payee is paid
 * through the fee proxy, detection completes the link and the page shows it paid. Two local
 * chains with the real contracts, the fake routing aggregator over real HTTP.
 */

const TOKEN_ABI = parseAbi(['function balanceOf(address) view returns (uint256)']);
const PAYEE = 1;
const ARBITRUM_ID = 42161;

let rig: PayPageRig;
let bridge: LocalBridge;

beforeAll(async () => {
  rig = await startPayPageRig({
    more: async (base) => {
      bridge = await startLocalBridge(base, { now: () => Date.now(), walletCount: 16 });
      return {
        env: bridge.env,
        transports: bridge.transports,
        walletChains: [bridge.arbitrum.chain],
      };
    },
  });
  bridge.start(rig.t, 50);
  bridge.tracker.start(200);
}, 180_000);
afterAll(async () => {
  await bridge?.close();
  await rig?.close();
});

const spec = (index: number): TestWalletSpec => ({
  name: 'Test Wallet',
  rdns: 'test.payreq.wallet',
  account: rig.wallet(index),
});

function usdtOnArbitrum(owner: Address): Promise<bigint> {
  return bridge.arbitrum.chain.client.readContract({
    address: getAddress(bridge.arbitrum.chain.addresses.usdt),
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });
}

/** From the summary to the route of USDT on Arbitrum, through the payer's sources. */
async function chooseArbitrumUsdt(page: Page): Promise<void> {
  await screen(page, 'pending');
  await page.locator('details.crosschain summary').click();
  await page.getByRole('button', { name: 'Choose a source in Test Wallet' }).click();
  await screen(page, 'sources');
  const source = page.locator('[data-source="ARBITRUM:USDT"]');
  expect((await source.textContent())?.trim()).toBe('Pay with USDT on Arbitrum One');
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
    await page.getByRole('button', { name: 'Pay', exact: true }).click();

    await screen(page, 'completed');
    expect(await text(page, 'h1')).toBe('Paid 25 USDC');
    // The wallet moved to Arbitrum, approved the SpokePool and deposited into it.
    const switched = wallet.calls.filter((c) => c.method === 'wallet_switchEthereumChain');
    expect(switched.map((c) => Number((c.params as { chainId: string }[])[0]?.chainId))).toEqual([
      ARBITRUM_ID,
    ]);
    expect(sends(wallet)).toBe(2);
    const spokePool = getAddress(bridge.arbitrum.chain.addresses.spokePool);
    expect(sentTo(wallet).map((to) => getAddress(to))).toEqual([
      getAddress(bridge.arbitrum.chain.addresses.usdt),
      spokePool,
    ]);
    // The payee got the link's amount to the base unit; the payer paid what the page said.
    expect((await rig.balance('USDC', payee)) - before.payee).toBe(25_000_000n);
    const spent = parseUnits(sourceAmount.split(' ')[0] ?? '', 6);
    expect(before.payer - (await usdtOnArbitrum(payer))).toBe(spent);
    // The deposit was recorded on the link, and the tracker followed it to its end.
    const deposit = wallet.sent[1];
    const row = await bridge.tracker.round().then(() => rig.get(`/v2/secure-payments/${token}`));
    expect(row.status).toBe(409);
    const filled = bridge.relayer.deposits().find((d) => d.depositTxHash === deposit);
    expect(filled?.status).toBe('filled');
    await rig.screenshot(page, 'crosschain-paid');
    await context.close();
  });
});
