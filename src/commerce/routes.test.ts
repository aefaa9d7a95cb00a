import { eq } from 'drizzle-orm';
import { toFunctionSelector, zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  apiKey,
  authorizeBody,
  BUYER_WALLET,
  backendClient,
  COMMERCE_TEST_START,
  createdPayment,
  MERCHANT_WALLET,
  OPERATOR_WALLET,
  operatorNonce,
  post,
  setClientIdCommerce,
  setupCommerceApp,
  status,
  t,
  tenantA,
  tenantB,
  wallet,
} from '../../test/commerce.ts';
import { commerceActions, commercePayments, requests } from '../db/schema.ts';

/**
 * `/v2/commerce-payments` over HTTP on the real app and a local chain standing in for Base:
 * creation, expiry resolution, tenancy and every refusal that needs no on-chain state, each
 * leaving the operator's nonce unchanged. (Flows on chain: test/e2e/commerce-api.test.ts.)
 */

setupCommerceApp();

const CREATE = '/v2/commerce-payments/authorize/calldata';
const START = Math.floor(COMMERCE_TEST_START.getTime() / 1000);

describe('POST /v2/commerce-payments/authorize/calldata', () => {
  it('writes the request and the payment and answers the buyer’s two transactions', async () => {
    const body = await createdPayment();
    const operator = wallet(OPERATOR_WALLET).address;
    expect(body).toMatchObject({
      to: t.chains.contracts('base').commerceEscrowWrapper,
      value: '0',
      operator,
    });
    expect(body.calldata).toBe(body.data);
    expect(body.transactions).toHaveLength(2);
    expect(body.transactions[0].to).toBe(t.chains.currency('USDC-base')?.address);
    expect(body.transactions[0].data.slice(0, 10)).toBe('0x095ea7b3');
    // The buyer's pre-approval of exactly the terms that `data` (authorizePayment) carries.
    expect(body.transactions[1]).toEqual({
      to: body.to,
      data: `${toFunctionSelector('preApproveAuthorization((bytes8,address,address,address,address,uint256,uint256,uint256,uint256,uint256,address,bytes))')}${body.data.slice(10)}`,
      value: { type: 'BigNumber', hex: '0x0' },
    });
    expect(body.data.slice(0, 10)).toBe('0x03af28e0');
    const [request] = await t.db
      .select()
      .from(requests)
      .where(eq(requests.requestId, body.requestId));
    expect(request).toMatchObject({
      payee: wallet(MERCHANT_WALLET).address,
      payer: wallet(BUYER_WALLET).address,
      expectedAmount: 50_000_000n,
      paymentReference: body.paymentReference,
    });
    const [payment] = await t.db
      .select()
      .from(commercePayments)
      .where(eq(commercePayments.requestId, body.requestId));
    expect(payment).toMatchObject({
      accountId: tenantA.accountId,
      operator,
      amount: 50_000_000n,
      maxAmount: 50_000_000n,
      preApprovalExpiry: START + 3_600,
      authorizationExpiry: START + 7 * 86_400,
      refundExpiry: START + 37 * 86_400,
    });
    expect(payment?.commercePaymentHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('answers no transactions without a buyer, and says why', async () => {
    const body = await createdPayment({ buyerAddress: undefined });
    expect(body.data).toBe('0x');
    expect(body.calldata).toBe('0x');
    expect(body.transactions).toEqual([]);
    expect(body.description).toContain('buyerAddress');
  });

  it('takes expiries from the client ID over the body, else the body, else the defaults', async () => {
    await setClientIdCommerce(tenantA.backendClientId, {
      defaultPreApprovalExpiry: 600,
      defaultAuthorizationExpiry: 86_400,
      operatorWalletAddress: wallet(7).address,
    });
    const fromClient = await createdPayment({}, backendClient(tenantA));
    const overridden = await createdPayment(
      { preApprovalExpiry: 60, authorizationExpiry: 120 },
      backendClient(tenantA),
    );
    const fromBody = await createdPayment({ preApprovalExpiry: 60 }, apiKey(tenantA));
    const rows = await t.db.select().from(commercePayments);
    const of = (id: string) => rows.find((r) => r.requestId === id);
    expect(of(fromClient.requestId)).toMatchObject({
      preApprovalExpiry: START + 600,
      authorizationExpiry: START + 86_400,
      refundExpiry: START + 31 * 86_400,
      operator: wallet(7).address,
    });
    expect(of(overridden.requestId)).toMatchObject({
      preApprovalExpiry: START + 600,
      authorizationExpiry: START + 86_400,
    });
    expect(of(fromBody.requestId)).toMatchObject({
      preApprovalExpiry: START + 60,
      authorizationExpiry: START + 7 * 86_400,
    });
    expect(fromClient.operator).toBe(wallet(7).address);
    await setClientIdCommerce(tenantA.backendClientId, {
      defaultPreApprovalExpiry: null,
      defaultAuthorizationExpiry: null,
      operatorWalletAddress: null,
    });
  });

  it.each([
    [
      { amount: '79228162514264337593543.950336' },
      'amount',
      'must be at most 79228162514264337593543.950335 (uint96 in base units), the largest amount the escrow takes',
    ],
    [{ maxAmount: '49' }, 'maxAmount', 'must be at least amount'],
    [{ amount: '0' }, 'amount', 'must be greater than 0'],
    [
      { refundExpiry: 2 ** 48 },
      'refundExpiry',
      'ends after 281474976710655 (uint48), the latest expiry the escrow takes',
    ],
    [
      { preApprovalExpiry: 100, authorizationExpiry: 50 },
      'preApprovalExpiry',
      'must not end after authorizationExpiry (100 s > 50 s)',
    ],
    [
      { paymentCurrency: 'ETH-base' },
      'paymentCurrency',
      'is not a supported ERC20 token currency id',
    ],
  ])('refuses %j naming %s', async (extra, field, message) => {
    const before = await t.db.$count(commercePayments);
    const res = await post(CREATE, authorizeBody(extra));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([{ field, message }]);
    expect(await t.db.$count(commercePayments)).toBe(before);
  });

  it('refuses a network without the commerce contracts, naming it', async () => {
    const res = await post(CREATE, authorizeBody({ paymentCurrency: 'USDC-sepolia' }));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().message).toBe(
      'Commerce payments are not available on sepolia: it has no commerce escrow wrapper, escrow and token collectors',
    );
  });
});

describe('GET /v2/commerce-payments/{requestId}/status', () => {
  it('answers a new payment as PENDING, with the schema’s and the example’s fields', async () => {
    const { requestId } = await createdPayment();
    const res = await status(requestId);
    expect(res.statusCode, res.body).toBe(200);
    // No event yet: 0.31.0's `type` has no value for that, so neither it nor its time is said.
    expect(res.json()).not.toHaveProperty('type');
    expect(res.json()).not.toHaveProperty('timestamp');
    expect(res.json()).toMatchObject({
      requestId,
      status: 'PENDING',
      payer: wallet(BUYER_WALLET).address,
      merchant: wallet(MERCHANT_WALLET).address,
      amount: '50',
      maxAmount: '50',
      capturedAmount: '0',
      capturableAmount: '0',
      refundedAmount: '0',
      refundableAmount: '0',
      voidedAmount: '0',
      reclaimedAmount: '0',
      preApprovalExpiry: '2030-01-01T13:00:00.000Z',
      authorizationExpiry: '2030-01-08T12:00:00.000Z',
      refundExpiry: '2030-02-07T12:00:00.000Z',
      canCapture: false,
      canVoid: false,
      canRefund: false,
      canReclaim: false,
      events: [],
    });
  });

  it('is 404 for another account’s payment and for another client ID’s', async () => {
    const { requestId } = await createdPayment();
    for (const headers of [apiKey(tenantB), backendClient(tenantB), backendClient(tenantA)]) {
      const res = await status(requestId, headers);
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json().message).toBe('Commerce payment not found');
    }
    const own = await createdPayment({}, backendClient(tenantA));
    expect((await status(own.requestId, backendClient(tenantA))).statusCode).toBe(200);
    expect((await status(own.requestId, apiKey(tenantA))).statusCode).toBe(200);
    expect((await status(`01${'0'.repeat(64)}`)).statusCode).toBe(404);
  });
});

describe('refusals before anything is sent', () => {
  async function refused(url: string, payload: object, code: number, message: string) {
    const nonce = await operatorNonce();
    const res = await post(url, payload);
    expect(res.statusCode, res.body).toBe(code);
    expect(res.json().message).toBe(message);
    expect(await operatorNonce()).toBe(nonce);
    return res;
  }
  const base = (id: string) => `/v2/commerce-payments/${id}`;

  it('refuses to capture, void or refund a payment that is not authorized', async () => {
    const { requestId } = await createdPayment();
    const notAuthorized = 'The payment is not authorized yet';
    for (const path of ['capture', 'capture/calldata']) {
      await refused(`${base(requestId)}/${path}`, { captureAmount: '1' }, 409, notAuthorized);
    }
    for (const path of ['void', 'void/calldata']) {
      await refused(`${base(requestId)}/${path}`, {}, 409, notAuthorized);
    }
    await refused(
      `${base(requestId)}/refund/calldata`,
      { refundAmount: '1' },
      409,
      'Nothing is captured yet: there is nothing to refund',
    );
  });

  it('refuses a refund the server would pay with its shared operator key', async () => {
    const { requestId, operator } = await createdPayment();
    expect(operator).toBe(wallet(OPERATOR_WALLET).address);
    await refused(
      `${base(requestId)}/refund`,
      { refundAmount: '1' },
      409,
      `The server does not refund with its shared operator key: a refund is paid from the operator's wallet (${operator}). Its key holder signs the /refund/calldata transactions and sends signedTransaction; a merchant refunds from its own operator (the client ID's operatorWalletAddress)`,
    );
  });

  it('refuses a fee without its receiver or to the zero address, and amounts beyond uint96', async () => {
    const { requestId } = await createdPayment();
    const res = await refused(
      `${base(requestId)}/capture`,
      { captureAmount: '1', feeBps: 100 },
      400,
      'Validation failed',
    );
    expect(res.json().errors).toEqual([
      { field: 'feeReceiver', message: 'is required when feeBps is greater than 0' },
    ]);
    for (const path of ['capture', 'capture/calldata']) {
      const zero = await refused(
        `${base(requestId)}/${path}`,
        { captureAmount: '1', feeBps: 100, feeReceiver: zeroAddress },
        400,
        'Validation failed',
      );
      expect(zero.json().errors).toEqual([
        {
          field: 'feeReceiver',
          message: 'must not be the zero address when feeBps is greater than 0',
        },
      ]);
    }
    expect(await t.db.select().from(commerceActions)).toEqual([]);
    const big = await refused(
      `${base(requestId)}/capture`,
      { captureAmount: '79228162514264337593543.950336' },
      400,
      'Validation failed',
    );
    expect(big.json().errors[0].field).toBe('captureAmount');
    const bps = await post(`${base(requestId)}/capture`, { captureAmount: '1', feeBps: 10_001 });
    expect(bps.statusCode).toBe(400);
  });

  it('refuses to authorize without a buyer, or after the pre-approval expired', async () => {
    const noBuyer = await createdPayment({ buyerAddress: undefined });
    await refused(
      `${base(noBuyer.requestId)}/authorize`,
      {},
      400,
      'The payment names no buyer (buyerAddress): the buyer authorizes it from their wallet',
    );
    const { requestId } = await createdPayment({ preApprovalExpiry: 60 });
    t.clock.advance(61_000);
    try {
      await refused(
        `${base(requestId)}/authorize`,
        {},
        409,
        'The pre-approval expired at 2030-01-01T12:01:00.000Z (preApprovalExpiry): the payment can no longer be authorized',
      );
      expect((await status(requestId)).json().status).toBe('EXPIRED');
    } finally {
      t.clock.advance(-61_000);
    }
  });

  it('requires a signed transaction when the server does not hold the operator’s key', async () => {
    await setClientIdCommerce(tenantA.backendClientId, {
      operatorWalletAddress: wallet(7).address,
    });
    try {
      const { requestId } = await createdPayment({}, backendClient(tenantA));
      const res = await t.app.inject({
        method: 'POST',
        url: `${base(requestId)}/authorize`,
        headers: backendClient(tenantA),
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toBe(
        `signedTransaction is required: this server does not hold the key of the payment's operator ${wallet(7).address}; sign the /calldata answer with it`,
      );
      const other = await t.app.inject({
        method: 'POST',
        url: `${base(requestId)}/authorize`,
        headers: backendClient(tenantA),
        payload: { signedTransaction: '0x1234' },
      });
      expect(other.statusCode, other.body).toBe(400);
      expect(other.json().message).toBe('signedTransaction is not a signed EVM transaction');
    } finally {
      await setClientIdCommerce(tenantA.backendClientId, { operatorWalletAddress: null });
    }
  });
});
