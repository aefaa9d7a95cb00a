import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { createWalletClient, custom, maxUint256, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screen, sends, text, texts } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import type { TestWalletSpec } from '../pay-page/wallet.ts';

/**
 * A payer pays on the hosted page in a real Chromium, with a wallet injected through
 * EIP-6963 that signs in the test process and sends to a local chain running the real
 * Request contracts; payment detection completes the link and the page shows it.
 */

let rig: PayPageRig;

beforeAll(async () => {
  rig = await startPayPageRig();
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

/** Sandbox wallets: payees first, then one payer per test. */
const PAYEE = { USDC: 1, ETH: 2, batch: [3, 4, 5] } as const;

const spec = (
  index: number,
  name = 'Test Wallet',
  rdns = 'test.payreq.wallet',
): TestWalletSpec => ({
  name,
  rdns,
  account: rig.wallet(index),
});

async function payWith(page: Page, walletName = 'Test Wallet'): Promise<void> {
  await page.getByRole('button', { name: `Pay with ${walletName}` }).click();
}

describe('paying on the hosted page', () => {
  it('pays a 6-decimal ERC20 link in two steps (approve, then pay), and reports each step to the merchant', async () => {
    const token = await rig.link([{ currency: 'USDC', amount: '12.5', payee: PAYEE.USDC }], {
      reference: 'order-1042',
    });
    const payee = rig.wallet(PAYEE.USDC).address;
    const before = await rig.balance('USDC', payee);
    const { page, wallets, context } = await rig.open(token, [spec(6)]);
    const [wallet] = wallets;
    if (!wallet) throw new Error('no wallet');

    await screen(page, 'pending');
    expect(await text(page, 'h1')).toBe('Pay 12.5 USDC');
    expect(await text(page, '[data-field="network"]')).toBe('Base');
    expect(await text(page, '[data-field="payee"]')).toBe(payee);
    expect(await text(page, '[data-field="reference"]')).toBe('order-1042');
    expect(await text(page, '[data-field="expires"]')).toMatch(/^6 days 23 hours$/);
    for (const size of SIZES) await shoot(page, 'pending', size);

    // Held in the wallet: the page shows its first step until the payer answers.
    let release = () => {};
    wallet.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    await payWith(page);
    await screen(page, 'paying');
    expect(await text(page, 'h1')).toBe('Paying: step 1 of 2');
    for (const size of SIZES) await shoot(page, 'paying', size);
    wallet.hold = null;
    release();

    await screen(page, 'completed');
    expect(await text(page, 'h1')).toBe('Paid 12.5 USDC');
    for (const size of SIZES) await shoot(page, 'completed', size);
    expect(sends(wallet)).toBe(2);
    expect(await rig.balance('USDC', payee)).toBe(before + 12_500_000n);
    // The calldata was read again between the approval and the payment.
    expect(rig.asked(`${token}/pay?`)).toBe(2);

    // Deliveries may arrive in any order; the browser's clock says in which they happened.
    const events = (await userEvents(token, 3)).sort((a, b) =>
      String(a.occurredAt).localeCompare(String(b.occurredAt)),
    );
    expect(events.map((e) => e.userEvent)).toEqual([
      'wallet_connected',
      'payment_sent_to_wallet',
      'payment_approved_in_wallet',
    ]);
    const hashed = createHash('sha256').update(rig.wallet(6).address.toLowerCase()).digest('hex');
    for (const event of events) {
      expect(event).toMatchObject({
        event: 'secure_payment.user_event',
        securePaymentToken: token,
        requestIds: [expect.stringMatching(/^01[0-9a-f]{64}$/)],
        properties: {
          wallet_provider: 'test.payreq.wallet',
          wallet_address_hashed: hashed,
          payment_type: 'single',
          selected_source_chain: 'base',
        },
      });
    }
    expect(events[2]?.properties).toMatchObject({
      payment_submission_id: wallet.sent[1],
      payment_submission_id_type: 'transaction_hash',
    });
    // The payment's own webhooks name the payer (the reference's payerAddress); the page's
    // telemetry never does.
    const raw = rig.receiver.received
      .filter((r) => r.body.event === 'secure_payment.user_event')
      .map((r) => r.rawBody)
      .join('\n')
      .toLowerCase();
    expect(raw).not.toContain(rig.wallet(6).address.toLowerCase().slice(2));
    await context.close();
  });

  it('pays an already-approved link in one step', async () => {
    const payer = rig.wallet(7);
    const erc20 = createWalletClient({
      account: payer,
      chain: rig.local.chain.chain,
      transport: custom(rig.local.chain.provider, { retryCount: 0 }),
    });
    const proxy = rig.t.chains.contracts('base').erc20FeeProxy;
    if (!proxy) throw new Error('no proxy');
    const approval = await erc20.writeContract({
      address: rig.local.chain.addresses.usdc as `0x${string}`,
      abi: parseAbi(['function approve(address,uint256) returns (bool)']),
      functionName: 'approve',
      args: [proxy as `0x${string}`, maxUint256],
    });
    await rig.local.chain.client.waitForTransactionReceipt({ hash: approval });

    const token = await rig.link([{ currency: 'USDC', amount: '0.000001', payee: PAYEE.USDC }]);
    const payee = rig.wallet(PAYEE.USDC).address;
    const before = await rig.balance('USDC', payee);
    const { page, wallets, context } = await rig.open(token, [spec(7)]);
    await screen(page, 'pending');
    await payWith(page);
    await screen(page, 'completed');
    expect(sends(wallets[0])).toBe(1);
    expect(await rig.balance('USDC', payee)).toBe(before + 1n);
    await context.close();
  });

  it('pays a native-currency link', async () => {
    const token = await rig.link([{ currency: 'ETH', amount: '0.25', payee: PAYEE.ETH }]);
    const payee = rig.wallet(PAYEE.ETH).address;
    const before = await rig.balance('ETH', payee);
    const { page, wallets, context } = await rig.open(token, [spec(8)]);
    await screen(page, 'pending');
    expect(await text(page, 'h1')).toBe('Pay 0.25 ETH');
    await payWith(page);
    await screen(page, 'completed');
    expect(sends(wallets[0])).toBe(1);
    expect(await rig.balance('ETH', payee)).toBe(before + 250_000_000_000_000_000n);
    await context.close();
  });

  it('pays a batch of three requests in one transaction after the approval', async () => {
    const amounts = ['1.5', '2.25', '0.000003'];
    const token = await rig.link(
      PAYEE.batch.map((payee, i) => ({
        currency: 'USDC' as const,
        amount: amounts[i] ?? '',
        payee,
      })),
    );
    const payees = PAYEE.batch.map((i) => rig.wallet(i).address);
    const before = await Promise.all(payees.map((p) => rig.balance('USDC', p)));
    const { page, wallets, context } = await rig.open(token, [spec(9)]);
    await screen(page, 'pending');
    expect(await text(page, 'h1')).toBe('Pay 3.750003 USDC');
    expect(await texts(page, '[data-field="amount"]', 3)).toEqual([
      '1.5 USDC',
      '2.25 USDC',
      '0.000003 USDC',
    ]);
    await payWith(page);
    await screen(page, 'completed');
    expect(sends(wallets[0])).toBe(2);
    const after = await Promise.all(payees.map((p) => rig.balance('USDC', p)));
    expect(after.map((a, i) => a - (before[i] ?? 0n))).toEqual([1_500_000n, 2_250_000n, 3n]);
    await context.close();
  });

  it('says the payer declined in the wallet, and pays when the payer tries again', async () => {
    const token = await rig.link([{ currency: 'ETH', amount: '0.01', payee: PAYEE.ETH }]);
    const { page, wallets, context } = await rig.open(token, [spec(10)]);
    const [wallet] = wallets;
    if (!wallet) throw new Error('no wallet');
    wallet.declineNext = 1;
    await screen(page, 'pending');
    await payWith(page);
    await screen(page, 'pending');
    expect(await text(page, '[role="alert"]')).toBe(
      'You declined in your wallet, so nothing was sent. You can try again.',
    );
    await payWith(page);
    await screen(page, 'completed');
    expect(wallet.sent).toHaveLength(1);
    await context.close();
  });

  it('asks the wallet to switch to the link’s chain', async () => {
    const token = await rig.link([{ currency: 'ETH', amount: '0.02', payee: PAYEE.ETH }]);
    const wallet: TestWalletSpec = { ...spec(11), startChainId: 1, knownChainIds: [1, 8453] };
    const { page, wallets, context } = await rig.open(token, [wallet]);
    await screen(page, 'pending');
    await payWith(page);
    await screen(page, 'completed');
    const methods = wallets[0]?.calls.map((c) => c.method) ?? [];
    expect(methods).toContain('wallet_switchEthereumChain');
    expect(methods.indexOf('wallet_switchEthereumChain')).toBeLessThan(
      methods.indexOf('eth_sendTransaction'),
    );
    expect(wallets[0]?.chainId).toBe(8453);
    await context.close();
  });

  it('says in words when the wallet does not know the link’s chain', async () => {
    const token = await rig.link([{ currency: 'ETH', amount: '0.02', payee: PAYEE.ETH }]);
    const wallet: TestWalletSpec = { ...spec(11), startChainId: 1, knownChainIds: [1] };
    const { page, context } = await rig.open(token, [wallet]);
    await screen(page, 'pending');
    await payWith(page);
    expect(await text(page, '[role="alert"]')).toBe(
      'Your wallet does not know the Base network. Add Base to your wallet, then try again.',
    );
    await context.close();
  });

  it('offers every wallet announced, and pays with the one chosen', async () => {
    const token = await rig.link([{ currency: 'ETH', amount: '0.03', payee: PAYEE.ETH }]);
    const { page, wallets, context } = await rig.open(token, [
      spec(12, 'Orange Wallet', 'test.orange'),
      spec(13, 'Blue Wallet', 'test.blue'),
    ]);
    await screen(page, 'pending');
    expect(await texts(page, '[data-wallet]', 2)).toEqual([
      'Pay with Orange Wallet',
      'Pay with Blue Wallet',
    ]);
    await payWith(page, 'Blue Wallet');
    await screen(page, 'completed');
    expect(sends(wallets[0])).toBe(0);
    expect(sends(wallets[1])).toBe(1);
    await context.close();
  });

  it('shows the merchant’s redirect button once paid, its label kept inside the card on a phone', async () => {
    const label = `Back${'ToTheShop'.repeat(20)}`;
    const token = await rig.link([{ currency: 'ETH', amount: '0.04', payee: PAYEE.ETH }], {
      redirectUrl: 'https://shop.example/thanks?order=7',
      redirectLabel: label,
    });
    const { page, context } = await rig.open(token, [spec(14)], { width: 375, height: 812 });
    await screen(page, 'pending');
    await payWith(page);
    await screen(page, 'completed');
    const button = page.getByRole('link', { name: label });
    expect(await button.getAttribute('href')).toBe('https://shop.example/thanks?order=7');
    const [card, box] = await Promise.all([
      page.locator('[data-screen="completed"]').boundingBox(),
      button.boundingBox(),
    ]);
    if (!card || !box) throw new Error('not laid out');
    expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(375);
    await context.close();
  });

  it('says what a batch needs, in its currency, when the wallet holds too little', async () => {
    const token = await rig.link(
      PAYEE.batch.slice(0, 2).map((payee) => ({
        currency: 'USDC' as const,
        amount: '999999999',
        payee,
      })),
    );
    const { page, wallets, context } = await rig.open(token, [spec(15)]);
    await screen(page, 'pending');
    await payWith(page);
    expect(await text(page, '[role="alert"]')).toBe(
      'This wallet holds 1000000 USDC, and the payments need 1999999998 USDC. Add funds to it, or pay from another wallet.',
    );
    expect(sends(wallets[0])).toBe(0);
    await context.close();
  });
  it('shows a payment sent from this browser as on its way after a reload, never as due again', async () => {
    const token = await rig.link([{ currency: 'ETH', amount: '0.05', payee: PAYEE.ETH }]);
    const { page, wallets, context } = await rig.open(token, [spec(15)]);
    // Detection held: the link stays pending after the payment, as while confirmations accrue.
    await rig.indexer.stop();
    try {
      await screen(page, 'pending');
      await payWith(page);
      await screen(page, 'confirming');
      await page.reload();
      const shown = page.locator('[data-screen]:not([data-screen="loading"])');
      await shown.waitFor({ timeout: 30_000 });
      expect(await shown.getAttribute('data-screen')).toBe('confirming');
      expect(await page.locator('[data-wallet]').count()).toBe(0);
    } finally {
      rig.indexer.start(200);
    }
    await screen(page, 'completed');
    expect(sends(wallets[0])).toBe(1);
    await context.close();
  });
});

/** The text of the first element matching `selector`, once there is one. */

const SIZES = [
  { width: 1280, height: 800 },
  { width: 375, height: 812 },
] as const;

async function shoot(page: Page, name: string, size: { width: number; height: number }) {
  await page.setViewportSize(size);
  await rig.screenshot(page, name);
}

interface UserEventBody {
  readonly userEvent: string;
  readonly properties: Record<string, string>;
  readonly [key: string]: unknown;
}

/** The `secure_payment.user_event` deliveries of `token`, once `count` have arrived. */
async function userEvents(token: string, count: number): Promise<UserEventBody[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const events = rig.receiver.received
      .map((r) => r.body)
      .filter((b) => b.event === 'secure_payment.user_event' && b.securePaymentToken === token)
      .map((b) => b as unknown as UserEventBody);
    if (events.length >= count || Date.now() > deadline) return events;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
