import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  apiKey,
  BUYER_WALLET,
  type BuyerCall as Call,
  commerceRowOf,
  createdPayment,
  byPayToken as get,
  MERCHANT_WALLET,
  sendBuyerCalls as send,
  setupCommerceApp,
  status,
  t,
  tenantA,
  tenantB,
  wallet,
} from '../../test/commerce.ts';
import { commerceActions, commercePayments } from '../db/schema.ts';

/**
 * The buyer's routes by pay token (`/v2/commerce-payments/token/{payToken}`) on the real app
 * and a local chain standing in for Base: what the page shows, the transactions for the
 * connected wallet (the approval only while the allowance is short), the buyer's word that it
 * authorized (checked against the receipt), and each refusal.
 */

setupCommerceApp({ realClock: true });

const STRANGER = 6;

async function tokenOf(requestId: string): Promise<string> {
  return (await commerceRowOf(requestId)).payToken;
}

function authorized(token: string, txHash: string) {
  return t.app.inject({
    method: 'POST',
    url: `/v2/commerce-payments/token/${token}/authorization`,
    headers: apiKey(tenantA),
    payload: { txHash },
  });
}

describe('GET /v2/commerce-payments/token/{payToken}', () => {
  it('shows the buyer what is held, until when, and by whom', async () => {
    const created = await createdPayment({ amount: '12.5', maxAmount: '20' });
    const token = await tokenOf(created.requestId);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(created.payUrl).toMatch(new RegExp(`/\\?commerce=${token}$`));
    const res = await get(token);
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await t.db
      .select()
      .from(commercePayments)
      .where(eq(commercePayments.requestId, created.requestId));
    expect(res.json()).toEqual({
      requestId: created.requestId,
      status: 'PENDING',
      network: 'base',
      chainId: 8453,
      currency: 'USDC-base',
      token: t.chains.currency('USDC-base')?.address,
      decimals: 6,
      amount: '12.5',
      maxAmount: '20',
      heldAmount: '0',
      capturedAmount: '0',
      refundedAmount: '0',
      canReclaim: false,
      merchant: wallet(MERCHANT_WALLET).address,
      merchantId: 'shop-1',
      buyer: wallet(BUYER_WALLET).address,
      preApprovalExpiry: new Date((row?.preApprovalExpiry ?? 0) * 1000).toISOString(),
      authorizationExpiry: new Date((row?.authorizationExpiry ?? 0) * 1000).toISOString(),
      refundExpiry: new Date((row?.refundExpiry ?? 0) * 1000).toISOString(),
    });
  });

  it('answers 404 for a token of the wrong shape, an unknown one, and another account’s', async () => {
    const token = await tokenOf((await createdPayment()).requestId);
    for (const [path, headers] of [
      ['not-a-token', apiKey(tenantA)],
      ['ab'.repeat(32), apiKey(tenantA)],
      [token.toUpperCase(), apiKey(tenantA)],
      [token, apiKey(tenantB)],
    ] as const) {
      const res = await get(path, headers);
      expect(res.statusCode, path).toBe(404);
      expect(res.json().message).toBe('Commerce payment not found');
    }
  });
});

describe('GET /v2/commerce-payments/token/{payToken}/authorize', () => {
  it('answers the approval and the authorization, then the authorization alone once approved', async () => {
    const created = await createdPayment();
    const token = await tokenOf(created.requestId);
    const buyer = wallet(BUYER_WALLET).address;
    const res = await get(`${token}/authorize?wallet=${buyer.toLowerCase()}`);
    expect(res.statusCode, res.body).toBe(200);
    // The wallet is the payer: it sends authorizePayment (the creation's `data`) itself, with
    // no pre-approval of the terms.
    const authorize = {
      to: created.to,
      data: created.data,
      value: { type: 'BigNumber', hex: '0x0' },
    };
    expect(res.json().transactions).toEqual([created.transactions[0], authorize]);
    await send(BUYER_WALLET, res.json().transactions.slice(0, 1));
    const again = await get(`${token}/authorize?wallet=${buyer}`);
    expect(again.json().transactions).toEqual([authorize]);
  });

  it('refuses another wallet than the named buyer (400) and a wallet that is no address', async () => {
    const token = await tokenOf((await createdPayment()).requestId);
    const stranger = wallet(STRANGER).address;
    const res = await get(`${token}/authorize?wallet=${stranger}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'commerce_buyer_mismatch',
      message: `Only the buyer this payment names can authorize it: ${wallet(BUYER_WALLET).address}, not ${stranger}`,
    });
    for (const query of ['', '?wallet=0x12']) {
      expect((await get(`${token}/authorize${query}`)).statusCode).toBe(400);
    }
  });

  it('names the connecting wallet the payer of a payment that names no buyer', async () => {
    const created = await createdPayment({ buyerAddress: undefined });
    expect(created.transactions).toEqual([]);
    const token = await tokenOf(created.requestId);
    const stranger = wallet(STRANGER).address;
    const res = await get(`${token}/authorize?wallet=${stranger}`);
    expect(res.statusCode, res.body).toBe(200);
    const calls: Call[] = res.json().transactions;
    expect(calls).toHaveLength(2);
    expect(calls[1]?.data.toLowerCase()).toContain(stranger.slice(2).toLowerCase());
    // Nothing is written by asking: the buyer is recorded once the authorization is seen.
    const [row] = await t.db
      .select()
      .from(commercePayments)
      .where(eq(commercePayments.requestId, created.requestId));
    expect(row?.payer).toBeNull();
  });

  it('refuses a payment past its pre-approval expiry (409)', async () => {
    const created = await createdPayment();
    await t.db
      .update(commercePayments)
      .set({ preApprovalExpiry: Math.floor(Date.now() / 1000) - 1 })
      .where(eq(commercePayments.requestId, created.requestId));
    const token = await tokenOf(created.requestId);
    const res = await get(`${token}/authorize?wallet=${wallet(BUYER_WALLET).address}`);
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('commerce_preapproval_expired');
    expect((await get(token)).json().status).toBe('EXPIRED');
  });
});

describe('POST /v2/commerce-payments/token/{payToken}/authorization', () => {
  it('counts a mined authorization as held once, learns the buyer, and refuses more', async () => {
    const created = await createdPayment({ buyerAddress: undefined, amount: '7' });
    const token = await tokenOf(created.requestId);
    const buyer = wallet(STRANGER).address;
    const calls: Call[] = (await get(`${token}/authorize?wallet=${buyer}`)).json().transactions;
    const [approval, authorization] = await send(STRANGER, calls);

    // The approval is no authorization of this payment.
    const wrong = await authorized(token, approval ?? '');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors).toEqual([
      { field: 'txHash', message: 'is not a successful authorization of this payment on base' },
    ]);
    expect((await authorized(token, `0x${'00'.repeat(32)}`)).statusCode).toBe(400);

    for (let i = 0; i < 2; i++) {
      const res = await authorized(token, authorization ?? '');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ requestId: created.requestId, status: 'AUTHORIZED' });
    }
    const [row] = await t.db
      .select()
      .from(commercePayments)
      .where(eq(commercePayments.requestId, created.requestId));
    expect(row?.payer).toBe(buyer);
    expect(row?.commercePaymentHash).toMatch(/^0x[0-9a-f]{64}$/);
    const actions = await t.db
      .select()
      .from(commerceActions)
      .where(eq(commerceActions.commercePaymentId, row?.id ?? ''));
    expect(actions).toMatchObject([
      { kind: 'authorize', status: 'confirmed', amount: 7_000_000n, txHash: authorization },
    ]);
    expect((await status(created.requestId)).json()).toMatchObject({
      status: 'AUTHORIZED',
      payer: buyer,
      authorizedAmount: '7',
      capturableAmount: '7',
    });
    const view = (await get(token)).json();
    expect(view).toMatchObject({ status: 'AUTHORIZED', buyer, heldAmount: '7' });

    // Held now: no other wallet may authorize it, and the buyer may not twice.
    expect(
      (await get(`${token}/authorize?wallet=${wallet(BUYER_WALLET).address}`)).json().code,
    ).toBe('commerce_buyer_mismatch');
    const twice = await get(`${token}/authorize?wallet=${buyer}`);
    expect(twice.statusCode).toBe(409);
    expect(twice.json().code).toBe('commerce_already_authorized');
  });
});
