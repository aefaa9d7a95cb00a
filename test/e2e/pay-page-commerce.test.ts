import { eq } from 'drizzle-orm';
import { type Address, getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commercePayments } from '../../src/db/schema.ts';
import { sandboxWallets } from '../../src/sandbox/addresses.ts';
import { accessibilityProblems, screen, sends, text } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import type { TestWallet, TestWalletSpec } from '../pay-page/wallet.ts';
import type { AtomicSupport } from '../pay-page/wallet-calls.ts';

/**
 * The hosted page of a commerce payment (`payUrl`, `PAY_URL/?commerce=<payToken>`), in a real
 * Chromium with an injected EIP-6963 wallet, on a local chain standing in for Base with the
 * commerce escrow and its wrapper: the buyer sees the amount and until when it is held,
 * approves the wrapper and authorizes from the wallet, and sees it held while the escrow holds
 * exactly the amount; a link naming another buyer tells the connected wallet so, and asks it
 * for nothing but its address.
 */

let rig: PayPageRig;

/** The rig's wallets (the sandbox mnemonic's): the operator, the merchant, buyers, a stranger. */
const OPERATOR = 15;
const MERCHANT = 1;
const BUYER = {
  named: 10,
  unnamed: 11,
  refused: 12,
  reclaims: 13,
  partlyCaptured: 7,
  atomic: 9,
  unbatched: 8,
} as const;
const STRANGER = 14;
const HOUR = 3_600;
const DAY = 86_400;

beforeAll(async () => {
  const operator = sandboxWallets(OPERATOR + 1)[OPERATOR];
  if (!operator) throw new Error('no operator wallet');
  rig = await startPayPageRig({ env: { COMMERCE_OPERATOR_KEY: operator.privateKey } });
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

const spec = (index: number, atomic?: AtomicSupport): TestWalletSpec => ({
  name: 'Test Wallet',
  rdns: 'test.payreq.wallet',
  account: rig.wallet(index),
  ...(atomic && { atomic }),
});

interface Created {
  readonly requestId: string;
  readonly payUrl: string;
}

/** `POST /v2/commerce-payments/authorize/calldata` over HTTP: `amount` USDC, to `buyer` or anyone. */
async function createPayment(amount: string, buyer: number | null): Promise<Created> {
  const res = await fetch(`${rig.origin}/v2/commerce-payments/authorize/calldata`, {
    method: 'POST',
    headers: { 'x-api-key': rig.tenant.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      merchantId: 'Corner Shop',
      merchantAddress: rig.wallet(MERCHANT).address,
      ...(buyer !== null && { buyerAddress: rig.wallet(buyer).address }),
      amount,
      paymentCurrency: 'USDC-base',
      preApprovalExpiry: HOUR,
      authorizationExpiry: 7 * DAY,
    }),
  });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`commerce payment: ${JSON.stringify(body)}`);
  return body as Created;
}

const queryOf = (created: Created) => new URL(created.payUrl).search.slice(1);

async function rowOf(requestId: string) {
  const [row] = await rig.t.db
    .select()
    .from(commercePayments)
    .where(eq(commercePayments.requestId, requestId));
  if (!row) throw new Error(`no commerce payment ${requestId}`);
  return row;
}

const escrow = (): Address => getAddress(rig.local.chain.addresses.authCaptureEscrow);
const methodsOf = (wallet: TestWallet | undefined) => wallet?.calls.map((c) => c.method) ?? [];
const asked = (wallet: TestWallet | undefined, method: string) =>
  wallet?.calls.filter((c) => c.method === method) ?? [];

interface Call {
  readonly to: string;
  readonly data: string;
  readonly value: { readonly hex: string };
}

/** What the buyer's wallet is told to send to authorize, as the page reads it. */
async function authorizeCalls(created: Created, buyer: Address) {
  const token = new URL(created.payUrl).searchParams.get('commerce');
  const { status, body } = await rig.get(
    `/v2/commerce-payments/token/${token}/authorize?wallet=${buyer}`,
  );
  expect(status).toBe(200);
  return (body.transactions as Call[]).map(({ to, data, value }) => ({
    to,
    data,
    value: value.hex,
  }));
}

describe('a commerce payment on the hosted page', () => {
  it('shows what is held until when, is authorized from the buyer’s wallet, and is held in the escrow', async () => {
    const created = await createPayment('12.34', BUYER.named);
    const buyer = rig.wallet(BUYER.named).address;
    const row = await rowOf(created.requestId);
    expect(created.payUrl).toBe(`${rig.origin}/?commerce=${row.payToken}`);
    const { page, wallets, context } = await rig.openAt(queryOf(created), [spec(BUYER.named)]);

    await screen(page, 'commerce-awaiting');
    expect(await text(page, 'h1')).toBe('Authorize a payment');
    expect(await text(page, '[data-field="amount"]')).toBe('12.34 USDC');
    const until = new Date(row.authorizationExpiry * 1000).toISOString();
    expect(await page.locator('[data-field="held-until"] time').getAttribute('datetime')).toBe(
      until,
    );
    expect(await text(page, 'p.amount')).toMatch(/^12\.34 USDC will be held until .+$/);
    expect(await text(page, '[data-field="words"]')).toContain(
      'The merchant captures it when your order ships and releases what it does not take',
    );
    expect(await text(page, '[data-field="state"]')).toBe('awaiting authorization');
    expect(await text(page, '[data-field="merchant-id"]')).toBe('Corner Shop');
    expect(await text(page, '[data-field="merchant"]')).toBe(rig.wallet(MERCHANT).address);
    expect(await text(page, '[data-field="buyer"]')).toBe(buyer);
    expect(await text(page, '[data-field="network"]')).toBe('Base');
    await page.getByRole('button', { name: 'Authorize with Test Wallet' }).waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'commerce-awaiting');

    const before = [await rig.balance('USDC', buyer), await rig.balance('USDC', escrow())];
    await page.getByRole('button', { name: 'Authorize with Test Wallet' }).click();
    await screen(page, 'commerce-held');
    expect(await text(page, 'h1')).toBe('Payment held');
    expect(await text(page, '[data-field="state"]')).toBe('held');
    expect(await text(page, 'p.amount')).toMatch(/^12\.34 USDC is held until .+$/);
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'commerce-held');

    // Two transactions from the wallet: the approval of the wrapper, then the authorization.
    expect(sends(wallets[0])).toBe(2);
    const after = [await rig.balance('USDC', buyer), await rig.balance('USDC', escrow())];
    expect(after.map((balance, i) => balance - (before[i] ?? 0n))).toEqual([
      -12_340_000n,
      12_340_000n,
    ]);
    const status = await rig.get(`/v2/commerce-payments/${created.requestId}/status`);
    expect(status.body).toMatchObject({
      status: 'AUTHORIZED',
      payer: buyer,
      authorizedAmount: '12.34',
      capturableAmount: '12.34',
    });
    await context.close();
  });

  it('makes the connecting wallet the buyer of a link that names none', async () => {
    const created = await createPayment('3', null);
    const buyer = rig.wallet(BUYER.unnamed).address;
    const { page, context } = await rig.openAt(queryOf(created), [spec(BUYER.unnamed)]);
    await screen(page, 'commerce-awaiting');
    expect(await page.locator('[data-field="buyer"]').count()).toBe(0);
    const before = await rig.balance('USDC', escrow());
    await page.getByRole('button', { name: 'Authorize with Test Wallet' }).click();
    await screen(page, 'commerce-held');
    expect(await text(page, '[data-field="buyer"]')).toBe(buyer);
    expect((await rig.balance('USDC', escrow())) - before).toBe(3_000_000n);
    const row = await rowOf(created.requestId);
    expect(row.payer).toBe(buyer);
    expect(row.commercePaymentHash).toMatch(/^0x[0-9a-f]{64}$/);
    await context.close();
  });

  it('tells another wallet than the named buyer so, and asks it for nothing', async () => {
    const created = await createPayment('5', BUYER.refused);
    const readsBefore = rig.asked('/authorize?wallet=');
    const { page, wallets, context } = await rig.openAt(queryOf(created), [spec(STRANGER)]);
    await screen(page, 'commerce-awaiting');
    await page.getByRole('button', { name: 'Authorize with Test Wallet' }).click();
    await screen(page, 'commerce-awaiting');
    expect(await text(page, '[role="alert"]')).toBe(
      `Only the buyer’s wallet can authorize this payment: ${rig.wallet(BUYER.refused).address}. This wallet is ${rig.wallet(STRANGER).address}. Connect that wallet, then try again.`,
    );
    expect(methodsOf(wallets[0])).toContain('eth_requestAccounts');
    for (const method of ['eth_sendTransaction', 'wallet_switchEthereumChain']) {
      expect(methodsOf(wallets[0])).not.toContain(method);
    }
    expect(rig.asked('/authorize?wallet=')).toBe(readsBefore);
    // The API refuses that wallet too, in words, and nothing is written.
    const token = new URL(created.payUrl).searchParams.get('commerce');
    const refused = await rig.get(
      `/v2/commerce-payments/token/${token}/authorize?wallet=${rig.wallet(STRANGER).address}`,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      `Only the buyer this payment names can authorize it: ${rig.wallet(BUYER.refused).address}, not ${rig.wallet(STRANGER).address}`,
    );
    expect((await rowOf(created.requestId)).payer).toBe(rig.wallet(BUYER.refused).address);
    await page.getByRole('button', { name: 'Authorize with Test Wallet' }).waitFor();
    await context.close();
  });

  it('is its own chunk: a payment link’s page never downloads it', async () => {
    const scripts: string[] = [];
    const token = await rig.link([{ currency: 'USDC', amount: '1', payee: MERCHANT }]);
    const { page, context } = await rig.openAt(`token=${token}`, [spec(STRANGER)]);
    page.on('response', (response) => {
      if (response.url().endsWith('.js')) scripts.push(response.url());
    });
    await page.reload();
    await screen(page, 'pending');
    await page
      .getByRole('button', { name: /Test Wallet/ })
      .first()
      .waitFor();
    expect(scripts.length).toBeGreaterThan(1);
    for (const url of scripts) {
      expect(await (await fetch(url)).text(), url).not.toContain('will be held until');
    }
    await context.close();
  });

  it('says a link that names no payment is not found', async () => {
    const { page, context } = await rig.openAt(`commerce=${'ab'.repeat(32)}`, []);
    await screen(page, 'not_found');
    await context.close();
  });
});

describe('authorizing in one confirmation (EIP-5792)', () => {
  it('sends the approval and authorizePayment in one wallet_sendCalls to a wallet that batches atomically', async () => {
    const created = await createPayment('2.5', BUYER.atomic);
    const buyer = rig.wallet(BUYER.atomic).address;
    const expected = await authorizeCalls(created, buyer);
    expect(expected).toHaveLength(2); // the approval, then the authorization
    const before = await rig.balance('USDC', escrow());
    const { page, wallets, context } = await rig.openAt(queryOf(created), [
      spec(BUYER.atomic, 'supported'),
    ]);
    const [wallet] = wallets;
    await screen(page, 'commerce-awaiting');
    await page.getByRole('button', { name: 'Authorize with Test Wallet' }).click();
    await screen(page, 'commerce-held');
    expect(asked(wallet, 'wallet_sendCalls').map((c) => c.params)).toEqual([
      [
        {
          version: '2.0.0',
          chainId: '0x2105',
          from: buyer,
          atomicRequired: true,
          calls: expected,
        },
      ],
    ]);
    expect(sends(wallet)).toBe(0);
    expect(wallet?.batches[0]?.status).toBe(200);
    expect((await rig.balance('USDC', escrow())) - before).toBe(2_500_000n);
    const status = await rig.get(`/v2/commerce-payments/${created.requestId}/status`);
    expect(status.body).toMatchObject({ status: 'AUTHORIZED', authorizedAmount: '2.5' });
    await context.close();
  });

  it('sends them one by one to a wallet that does not batch atomically', async () => {
    const created = await createPayment('1.5', BUYER.unbatched);
    const buyer = rig.wallet(BUYER.unbatched).address;
    const [approval, authorization] = await authorizeCalls(created, buyer);
    const { page, wallets, context } = await rig.openAt(queryOf(created), [
      spec(BUYER.unbatched, 'unsupported'),
    ]);
    const [wallet] = wallets;
    await screen(page, 'commerce-awaiting');
    await page.getByRole('button', { name: 'Authorize with Test Wallet' }).click();
    await screen(page, 'commerce-held');
    expect(asked(wallet, 'wallet_getCapabilities')).toHaveLength(1);
    expect(asked(wallet, 'wallet_sendCalls')).toHaveLength(0);
    const sent = asked(wallet, 'eth_sendTransaction').map(
      (c) => (c.params as [{ to: string; data: string }])[0],
    );
    expect(sent.map(({ to, data }) => ({ to, data }))).toEqual([
      { to: approval?.to, data: approval?.data },
      { to: authorization?.to, data: authorization?.data },
    ]);
    await context.close();
  });
});

// Last: they move the chain's clock past every payment's authorization expiry.
describe('an authorization that expired uncaptured', () => {
  it('says the funds are still held and the buyer’s, and gives them back to the buyer’s wallet exactly', async () => {
    const created = await createPayment('6.75', BUYER.reclaims);
    const buyer = rig.wallet(BUYER.reclaims).address;
    const start = [await rig.balance('USDC', buyer), await rig.balance('USDC', escrow())];
    const held = await rig.openAt(queryOf(created), [spec(BUYER.reclaims)]);
    await screen(held.page, 'commerce-awaiting');
    await held.page.getByRole('button', { name: 'Authorize with Test Wallet' }).click();
    await screen(held.page, 'commerce-held');
    await held.context.close();
    expect((await rig.balance('USDC', buyer)) - (start[0] ?? 0n)).toBe(-6_750_000n);

    // The chain's clock passes the authorization's expiry; the merchant captured nothing.
    await rig.local.chain.provider.request({ method: 'evm_increaseTime', params: [8 * DAY] });
    await rig.local.chain.provider.request({ method: 'evm_mine', params: [] });
    await expect
      .poll(async () => (await rig.get(`/v2/commerce-payments/${created.requestId}/status`)).body, {
        timeout: 10_000,
      })
      .toMatchObject({ status: 'EXPIRED' });

    const { page, wallets, context } = await rig.openAt(queryOf(created), [spec(BUYER.reclaims)]);
    await screen(page, 'commerce-reclaimable');
    expect(await text(page, 'h1')).toBe('The hold expired');
    expect(await text(page, '[data-field="state"]')).toBe('expired, yours to reclaim');
    expect(await text(page, '[data-field="words"]')).toBe(
      'The hold expired before the merchant captured it: 6.75 USDC is still in the escrow, and only you can take it back. Reclaim it to your wallet.',
    );
    expect(await text(page, 'p.amount')).toMatch(/^6\.75 USDC was held until .+$/);
    expect(await page.getByText('Nothing was held').count()).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'commerce-reclaimable');

    await page.getByRole('button', { name: 'Reclaim with Test Wallet' }).click();
    // Shown reclaimed once detection reads the wrapper's PaymentReclaimed.
    await screen(page, 'commerce-reclaimed');
    expect(await text(page, 'h1')).toBe('Payment reclaimed');
    expect(await text(page, '[data-field="state"]')).toBe('reclaimed');
    expect(sends(wallets[0])).toBe(1);
    expect([await rig.balance('USDC', buyer), await rig.balance('USDC', escrow())]).toEqual(start);
    const status = await rig.get(`/v2/commerce-payments/${created.requestId}/status`);
    expect(status.body).toMatchObject({ status: 'RECLAIMED', reclaimedAmount: '6.75' });
    await context.close();
  });
});

describe('an authorization captured in part that expired', () => {
  it('offers the buyer what the merchant did not capture, and gives exactly that back', async () => {
    const created = await createPayment('50', BUYER.partlyCaptured);
    const buyer = rig.wallet(BUYER.partlyCaptured).address;
    const start = [await rig.balance('USDC', buyer), await rig.balance('USDC', escrow())];
    const held = await rig.openAt(queryOf(created), [spec(BUYER.partlyCaptured)]);
    await held.page.getByRole('button', { name: 'Authorize with Test Wallet' }).click();
    await screen(held.page, 'commerce-held');
    await held.context.close();
    const capture = await fetch(`${rig.origin}/v2/commerce-payments/${created.requestId}/capture`, {
      method: 'POST',
      headers: { 'x-api-key': rig.tenant.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ captureAmount: '30' }),
    });
    expect(capture.status, await capture.text()).toBe(200);

    // The chain's clock passes the authorization's expiry with 20 of the 50 still held.
    const latest = await rig.local.chain.client.getBlock({ blockTag: 'latest' });
    const { authorizationExpiry } = await rowOf(created.requestId);
    await rig.local.chain.provider.request({
      method: 'evm_increaseTime',
      params: [authorizationExpiry + 60 - Number(latest.timestamp)],
    });
    await rig.local.chain.provider.request({ method: 'evm_mine', params: [] });
    await expect
      .poll(async () => (await rig.get(`/v2/commerce-payments/${created.requestId}/status`)).body, {
        timeout: 10_000,
      })
      .toMatchObject({ status: 'PAID', capturableAmount: '20', canReclaim: true });

    const { page, wallets, context } = await rig.openAt(queryOf(created), [
      spec(BUYER.partlyCaptured),
    ]);
    await screen(page, 'commerce-reclaimable');
    expect(await text(page, 'h1')).toBe('The hold expired');
    expect(await text(page, '[data-field="state"]')).toBe('expired, yours to reclaim');
    expect(await text(page, '[data-field="words"]')).toBe(
      '30 USDC was captured; the remaining 20 USDC is yours to reclaim. It is still in the escrow, and only you can take it back to your wallet.',
    );
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'commerce-reclaimable-partly-captured');
    const beforeReclaim = await rig.balance('USDC', buyer);

    await page.getByRole('button', { name: 'Reclaim with Test Wallet' }).click();
    // Followed until detection reads the reclaim: nothing is held, and it stays captured.
    await screen(page, 'commerce-captured');
    expect(await page.getByRole('button', { name: 'Reclaim with Test Wallet' }).count()).toBe(0);
    expect(sends(wallets[0])).toBe(1);
    expect((await rig.balance('USDC', buyer)) - beforeReclaim).toBe(20_000_000n);
    // Of the buyer's 50, the merchant kept the 30 captured; the escrow holds nothing of it.
    expect([
      (await rig.balance('USDC', buyer)) - (start[0] ?? 0n),
      await rig.balance('USDC', escrow()),
    ]).toEqual([-30_000_000n, start[1]]);
    const status = await rig.get(`/v2/commerce-payments/${created.requestId}/status`);
    expect(status.body).toMatchObject({
      status: 'PAID',
      capturedAmount: '30',
      reclaimedAmount: '20',
      canReclaim: false,
    });
    await context.close();
  });
});
