import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { requests } from '../../src/db/schema.ts';
import {
  apiKey,
  BUYER_WALLET,
  createdPayment,
  MERCHANT_WALLET,
  post,
  setupCommerceApp,
  t,
  tenantA,
  wallet,
} from '../commerce.ts';

/**
 * A commerce payment's request is paid only through the escrow: every way to pay a request
 * directly (v2 and v1 `/pay`, with and without chain and token, `/routes`, a batch payout of
 * existing requests) answers 409 `commerce_request_not_directly_payable`; an ordinary request on
 * the same network still answers 200.
 */

setupCommerceApp();

const CODE = 'commerce_request_not_directly_payable';

function get(url: string) {
  return t.app.inject({ method: 'GET', url, headers: apiKey(tenantA) });
}

async function referenceOf(requestId: string): Promise<string> {
  const [row] = await t.db.select().from(requests).where(eq(requests.requestId, requestId));
  if (!row) throw new Error(`no request ${requestId}`);
  return `0x${row.paymentReference}`;
}

async function ordinaryRequest(): Promise<string> {
  const res = await post('/v2/request', {
    payee: wallet(MERCHANT_WALLET).address,
    amount: '50',
    invoiceCurrency: 'USDC-base',
    paymentCurrency: 'USDC-base',
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().requestId;
}

/** The paths that would pay `requestId` (payment reference `reference`) directly. */
function directPaths(requestId: string, reference: string): string[] {
  const payer = wallet(BUYER_WALLET).address;
  return [
    `/v2/request/${requestId}/pay?wallet=${payer}`,
    `/v2/request/${requestId}/pay`,
    `/v2/request/${requestId}/pay?wallet=${payer}&chain=ARBITRUM&token=USDC`,
    `/v2/request/${requestId}/routes?wallet=${payer}`,
    `/v1/request/${reference}/pay?wallet=${payer}`,
    `/v1/request/${reference}/pay?wallet=${payer}&chain=ARBITRUM&token=USDC`,
    `/v1/request/${reference}/routes?wallet=${payer}`,
  ];
}

describe('a commerce payment’s request', () => {
  it('is refused by /pay and /routes, v2 and v1, naming the authorize flow', async () => {
    const { requestId } = await createdPayment();
    for (const path of directPaths(requestId, await referenceOf(requestId))) {
      const res = await get(path);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(409);
      expect(res.json()).toMatchObject({ code: CODE });
      expect(res.json().message).toContain('payUrl');
      expect(res.json().message).toContain(`/v2/commerce-payments/${requestId}/authorize`);
    }
  });

  it('is refused by a batch payout of existing requests, even beside an ordinary one', async () => {
    const { requestId } = await createdPayment();
    const res = await post('/v2/payouts/batch', {
      requestIds: [await ordinaryRequest(), requestId],
      payer: wallet(BUYER_WALLET).address,
    });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject({ code: CODE });
  });

  it('leaves an ordinary request payable: /pay, /routes and a batch payout answer 200', async () => {
    const requestId = await ordinaryRequest();
    const [v2Pay, v2Routes, v1Pay, v1Routes] = directPaths(
      requestId,
      await referenceOf(requestId),
    ).filter((path) => !path.includes('chain=') && path.includes('wallet='));
    for (const path of [v2Pay, v2Routes, v1Pay, v1Routes]) {
      const res = await get(path ?? '');
      expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
    }
    const batch = await post('/v2/payouts/batch', {
      requestIds: [requestId],
      payer: wallet(BUYER_WALLET).address,
    });
    expect(batch.statusCode, batch.body).toBe(201);
  });
});
