import type { Page } from 'playwright-core';
import { type Address, getAddress, type Hex, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Indexer } from '../../src/detection/indexer.ts';
import { type BridgeWorld, balanceOf, startBridgeWorld } from '../bridge-world.ts';
import type { StandIn } from '../chain.ts';
import { accessibilityProblems, screen, text, texts } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import type { TestWallet, TestWalletSpec } from '../pay-page/wallet.ts';
import { testIndexer } from '../workers.ts';

/**
 * A multicall payout whose children are on Base and Optimism, paid by its creator on the
 * hosted page from USDT on Arbitrum, in a real Chromium: the page offers only a source chain
 * (no one chain pays the children directly), lists the sources every child can be paid from,
 * shows each child bridged to its network and what the bridge takes, switches the wallet to
 * Arbitrum and sends the approval and one deposit per child into the local Across SpokePool;
 * the relayer fills each on its chain, where the handler pays the child through the fee proxy,
 * detection on Base and Optimism marks each child paid, and the page shows the parent paid.
 * Three local chains with the real contracts and the fake aggregator over real HTTP
 * (test/bridge-world.ts).
 */

const ARBITRUM_ID = 42161;
/** Recipients, then the creators (funded with USDT on Arbitrum): each test its own. */
const RECIPIENTS = [1, 2, 3] as const;
const CREATOR = 11;
const LATE = { recipients: [4, 5] as const, creator: 12 };
const CHOSEN = { recipients: [6, 7] as const, creator: 13 };

let world: BridgeWorld;
let optimism: StandIn;
let rig: PayPageRig;
let optimismIndexer: Indexer;

beforeAll(async () => {
  // The rig's payees and payers are wallets up to 15 on every chain.
  world = await startBridgeWorld({ walletCount: 16, optimism: true });
  if (!world.optimism) throw new Error('no Optimism stand-in');
  optimism = world.optimism;
  rig = await startPayPageRig({
    world: {
      base: world.base,
      env: world.env,
      transports: world.transports,
      walletChains: [world.arbitrum.chain],
    },
    // Three chains' balances on a loaded machine: none left out of `paymentOptions`.
    env: { PAYMENT_OPTIONS_TIMEOUT_MS: '20000' },
  });
  // The rig detects payments on Base; the Optimism child is detected on its own chain.
  optimismIndexer = testIndexer(rig.t, { network: 'optimism', confirmations: 0 });
  optimismIndexer.start(200);
}, 180_000);
afterAll(async () => {
  await optimismIndexer?.stop();
  await rig?.close();
  await world?.close();
});

const spec = (index: number): TestWalletSpec => ({
  name: 'Test Wallet',
  rdns: 'test.payreq.wallet',
  account: rig.wallet(index),
});

const usdc = (chain: StandIn, owner: Address) =>
  balanceOf(chain, getAddress(chain.chain.addresses.usdc), owner);

/** The calls the wallet sent: where each went. */
function sentTo(wallet: TestWallet): Address[] {
  return wallet.calls
    .filter((c) => c.method === 'eth_sendTransaction')
    .map((c) => getAddress((c.params as { to: Hex }[])[0]?.to ?? '0x'));
}

async function chooseArbitrumUsdt(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
  await screen(page, 'sources');
  const offered = await page
    .locator('[data-source]')
    .evaluateAll((all) => all.map((b) => b.dataset.source));
  expect(offered).toContain('ARBITRUM:USDT');
  // USDC on Base pays the Base children but not the Optimism one without a bridge: still a
  // source both kinds of child share; a source one child lacks is not offered.
  expect(new Set(offered).size).toBe(offered.length);
  expect(await accessibilityProblems(page)).toEqual([]);
  await page.locator('[data-source="ARBITRUM:USDT"]').click();
  await screen(page, 'route');
}

describe('paying a multicall payout across chains on the hosted page', () => {
  it('pays children on Base and Optimism from USDT on Arbitrum, each payee exactly, and shows the payout paid', async () => {
    const [r1, r2, r3] = RECIPIENTS;
    const children = [
      await rig.payout({ currency: 'USDC', amount: '1.5', payee: r1, creator: CREATOR }),
      await rig.payout({ currency: 'USDC', amount: '2.25', payee: r2, creator: CREATOR }),
      await rig.payout({
        currency: 'USDC',
        amount: '3',
        payee: r3,
        creator: CREATOR,
        network: 'optimism',
      }),
    ];
    const token = await rig.multicall(children);
    const payees = RECIPIENTS.map((index) => rig.wallet(index).address);
    const creator = rig.wallet(CREATOR).address;
    const arbitrumUsdt = () =>
      balanceOf(world.arbitrum, getAddress(world.arbitrum.chain.addresses.usdt), creator);
    const chains = [world.base, world.base, optimism];
    const balances = () =>
      Promise.all(payees.map((payee, i) => usdc(chains[i] ?? world.base, payee)));
    const before = { payees: await balances(), creator: await arbitrumUsdt() };

    const { page, wallets, context } = await rig.open(token, [spec(CREATOR)]);
    const [wallet] = wallets;
    if (!wallet) throw new Error('no wallet');
    await screen(page, 'pending');
    expect(await text(page, '[data-field="network"]')).toMatch(/^Payouts on several networks/);
    // No same-chain payment and no Safe: only a source chain pays children on two networks.
    await page.getByRole('button', { name: 'Pay with Test Wallet' }).waitFor();
    expect(await page.locator('details.safe, details.crosschain').count()).toBe(0);

    await chooseArbitrumUsdt(page);
    expect(await text(page, 'h1')).toBe('Pay 3 payouts from Arbitrum One');
    expect(await texts(page, '[data-field="route"]', 3)).toEqual([
      'Bridged to Base',
      'Bridged to Base',
      'Bridged to Optimism',
    ]);
    expect(await texts(page, '[data-field="payee"]', 3)).toEqual(payees);
    // Each deposit pays 10 bps and 0.5 USDT to the bridge (the fake's price).
    const sourceAmount = await text(page, '[data-field="source-amount"]');
    expect(sourceAmount).toMatch(/^8\.2\d* USDT on Arbitrum One$/);
    expect(await text(page, '[data-field="bridge-fee"]')).toMatch(/^1\.5\d* USDT$/);
    expect(await text(page, '[data-field="quote-expires"]')).toMatch(/seconds|minutes/);
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'crosschain-multicall-route');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();

    await screen(page, 'completed');
    // Paid on two networks: each payment names its own, and no one network is the receipt's.
    expect(await texts(page, '[data-field="line-network"]', 3)).toEqual([
      'on Base',
      'on Base',
      'on Optimism',
    ]);
    expect(await page.locator('[data-field="network"]').count()).toBe(0);
    // The wallet moved to Arbitrum, approved the SpokePool, and deposited once per child.
    const switched = wallet.calls.filter((c) => c.method === 'wallet_switchEthereumChain');
    expect(switched.map((c) => Number((c.params as { chainId: string }[])[0]?.chainId))).toEqual([
      ARBITRUM_ID,
    ]);
    const spokePool = getAddress(world.arbitrum.chain.addresses.spokePool);
    const usdt = getAddress(world.arbitrum.chain.addresses.usdt);
    expect(sentTo(wallet)).toEqual([usdt, spokePool, spokePool, spokePool]);
    // Every recipient got its amount to the base unit, on its own chain.
    const after = await balances();
    expect(after.map((value, i) => value - (before.payees[i] ?? 0n))).toEqual([
      1_500_000n,
      2_250_000n,
      3_000_000n,
    ]);
    // The creator paid what the page said.
    const spent = parseUnits(sourceAmount.split(' ')[0] ?? '', 6);
    expect(before.creator - (await arbitrumUsdt())).toBe(spent);
    expect((await rig.get(`/v2/secure-payments/${token}`)).status).toBe(409);
    await rig.screenshot(page, 'crosschain-multicall-paid');
    await context.close();
  });

  it('asks the parent’s routes again when the quote expired while the creator approved, and never sends the stale deposits', async () => {
    // Quotes that hold 20 s: the page sends none with less than 10 s left, so this one is
    // sent from its route screen for 10 s, and is past sending 20.5 s after it was asked for.
    world.fake.setQuoteLifetime(20);
    const [r1, r2] = LATE.recipients;
    const children = [
      await rig.payout({ currency: 'USDC', amount: '1', payee: r1, creator: LATE.creator }),
      await rig.payout({
        currency: 'USDC',
        amount: '2',
        payee: r2,
        creator: LATE.creator,
        network: 'optimism',
      }),
    ];
    const token = await rig.multicall(children);
    const [p1, p2] = LATE.recipients.map((index) => rig.wallet(index).address);
    if (!p1 || !p2) throw new Error('no payees');
    const before = [await usdc(world.base, p1), await usdc(optimism, p2)];
    const { page, wallets, context } = await rig.open(token, [spec(LATE.creator)]);
    const [wallet] = wallets;
    if (!wallet) throw new Error('no wallet');
    await screen(page, 'pending');
    const asked = Date.now();
    await chooseArbitrumUsdt(page);
    // The creator reads the approval in the wallet until the quote is past sending.
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
    expect([
      (await usdc(world.base, p1)) - (before[0] ?? 0n),
      (await usdc(optimism, p2)) - (before[1] ?? 0n),
    ]).toEqual([1_000_000n, 2_000_000n]);
    // The parent's routes asked twice (it has no step to refresh); one deposit per child, both
    // the second route's: the approval, the new route's approval, then its two deposits.
    expect(rig.asked(`${token}/pay?`)).toBe(2);
    expect(rig.asked(`${token}/refresh-step-transaction`)).toBe(0);
    const spokePool = getAddress(world.arbitrum.chain.addresses.spokePool);
    const sent = sentTo(wallet);
    expect(sent.filter((to) => to === spokePool)).toHaveLength(2);
    expect(sent.slice(-2)).toEqual([spokePool, spokePool]);
    await context.close();
  }, 120_000);

  it('pays a payout created to cross chains, its children all on Base, from Arbitrum when its creator chooses to', async () => {
    const [r1, r2] = CHOSEN.recipients;
    const children = [
      await rig.payout({ currency: 'USDC', amount: '1.25', payee: r1, creator: CHOSEN.creator }),
      await rig.payout({ currency: 'USDC', amount: '0.75', payee: r2, creator: CHOSEN.creator }),
    ];
    const token = await rig.multicall(children, { requestedExecutionKind: 'evm_cross_chain' });
    const payees = CHOSEN.recipients.map((index) => rig.wallet(index).address);
    const before = await Promise.all(payees.map((payee) => usdc(world.base, payee)));
    const { page, wallets, context } = await rig.open(token, [spec(CHOSEN.creator)]);
    const [wallet] = wallets;
    if (!wallet) throw new Error('no wallet');
    await screen(page, 'pending');
    // One network: the wallet buttons pay on Base, and another chain is offered under them.
    expect(await text(page, '[data-field="network"]')).toBe('Base');
    await page.locator('details.crosschain summary').click();
    await page.getByRole('button', { name: 'Choose a source in Test Wallet' }).click();
    await screen(page, 'sources');
    const offered = await page
      .locator('[data-source]')
      .evaluateAll((all) => all.map((b) => b.dataset.source));
    // Not Base's own tokens: the wallet buttons pay there.
    expect(offered.filter((source) => source?.startsWith('BASE:'))).toEqual([]);
    await page.locator('[data-source="ARBITRUM:USDT"]').click();
    await screen(page, 'route');
    expect(await texts(page, '[data-field="route"]', 2)).toEqual([
      'Bridged to Base',
      'Bridged to Base',
    ]);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await screen(page, 'completed');
    const spokePool = getAddress(world.arbitrum.chain.addresses.spokePool);
    expect(sentTo(wallet).slice(-2)).toEqual([spokePool, spokePool]);
    const after = await Promise.all(payees.map((payee) => usdc(world.base, payee)));
    expect(after.map((value, i) => value - (before[i] ?? 0n))).toEqual([1_250_000n, 750_000n]);
    // One network: the receipt names it.
    expect(await text(page, '[data-field="network"]')).toBe('Base');
    await context.close();
  }, 120_000);
});
