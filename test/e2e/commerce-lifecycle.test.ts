import { type Address, getAddress, type Hex, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Indexer } from '../../src/detection/indexer.ts';
import { createRealClock, createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { signedRefund } from '../commerce.ts';
import { balanceOf, wrapperAbi, write } from '../commerce-contracts.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { testIndexer } from '../workers.ts';

/**
 * A commerce payment's whole life through HTTP, its state read from the chain by the real
 * indexer: the buyer pre-approves with the transactions the API answers, the server's operator
 * authorizes, captures with a fee, its key's holder signs a refund, and the server voids the rest,
 * on an 18-decimal token; and a payment whose
 * authorization expires on the chain's clock (moved, as `payreq sandbox clock advance` moves
 * the sandbox's, while the server's stays put) is refused a capture and reclaimed by its buyer.
 * Every balance exact to the base unit.
 */

const OPERATOR = 5;
const BUYER = 2;
const MERCHANT = 3;
const FEE_RECEIVER = 4;

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let indexer: Indexer;

beforeAll(async () => {
  local = await standIn('base', { walletCount: 8 });
  t = await createTestApp({
    env: {
      ...local.env,
      COMMERCE_OPERATOR_KEY: local.chain.wallets[OPERATOR]?.privateKey ?? '',
      CONFIRMATIONS_BASE: '0',
    },
    transports: local.transports,
    clock: createRealClock(),
  });
  tenant = await createTenant(t.db, 'Shop');
  indexer = testIndexer(t, { confirmations: 0 });
  await indexer.tick();
});
afterAll(async () => {
  await t?.close();
  await local?.chain.close();
});

const address = (index: number): Address => accountOf(local.chain, index).address;
const escrow = () => getAddress(local.chain.addresses.authCaptureEscrow);
const url = (requestId: string, path: string) => `/v2/commerce-payments/${requestId}/${path}`;

function call(method: 'GET' | 'POST', path: string, payload?: object) {
  return t.app.inject({
    method,
    url: path,
    headers: { 'x-api-key': tenant.apiKey },
    ...(payload && { payload }),
  });
}

async function statusOf(requestId: string) {
  const res = await call('GET', url(requestId, 'status'));
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/**
 * Creates the payment, sends the buyer's approval and pre-approval as a wallet would, then
 * the server's operator authorizes.
 */
async function authorized(body: Record<string, unknown>): Promise<string> {
  const created = await call('POST', '/v2/commerce-payments/authorize/calldata', {
    merchantId: 'order-1',
    merchantAddress: address(MERCHANT),
    buyerAddress: address(BUYER),
    ...body,
  });
  expect(created.statusCode, created.body).toBe(201);
  const { requestId, transactions } = created.json() as {
    requestId: string;
    transactions: { to: Address; data: Hex; value: { hex: Hex } }[];
  };
  await sendAll(
    local.chain,
    accountOf(local.chain, BUYER),
    transactions.map((tx) => ({
      to: tx.to,
      data: tx.data,
      value: tx.value.hex,
      chainId: local.chain.chainId,
    })),
  );
  const authorize = await call('POST', url(requestId, 'authorize'), {});
  expect(authorize.statusCode, authorize.body).toBe(200);
  await indexer.tick();
  return requestId;
}

describe('a commerce payment read from the chain', () => {
  it('authorize 50 DAI, capture 30 at 1 %, refund 10, void the rest', async () => {
    const dai = (value: string) => parseUnits(value, 18);
    const balance = (who: Address) => balanceOf(local.chain, local.chain.addresses.dai, who);
    const start = {
      buyer: await balance(address(BUYER)),
      merchant: await balance(address(MERCHANT)),
      fee: await balance(address(FEE_RECEIVER)),
      escrow: await balance(escrow()),
    };

    const requestId = await authorized({ amount: '50', paymentCurrency: 'DAI-base' });
    expect(await statusOf(requestId)).toMatchObject({
      status: 'AUTHORIZED',
      type: 'AUTHORIZED',
      amount: '50',
      capturableAmount: '50',
      capturedAmount: '0',
      payer: address(BUYER),
      canCapture: true,
      canVoid: true,
      canRefund: false,
    });
    expect(await balance(escrow())).toBe(start.escrow + dai('50'));
    expect(await balance(address(BUYER))).toBe(start.buyer - dai('50'));

    const capture = await call('POST', url(requestId, 'capture'), {
      captureAmount: '30',
      feeBps: 100,
      feeReceiver: address(FEE_RECEIVER),
    });
    expect(capture.statusCode, capture.body).toBe(200);
    await indexer.tick();
    expect(await balance(address(MERCHANT))).toBe(start.merchant + dai('29.7'));
    expect(await balance(address(FEE_RECEIVER))).toBe(start.fee + dai('0.3'));
    expect(await balance(escrow())).toBe(start.escrow + dai('20'));
    expect(await statusOf(requestId)).toMatchObject({
      status: 'PAID',
      type: 'CAPTURED',
      capturedAmount: '30',
      capturableAmount: '20',
      refundableAmount: '30',
    });

    // The server does not pay a refund with its shared key; its holder signs one on purpose.
    const unfunded = await call('POST', url(requestId, 'refund'), { refundAmount: '10' });
    expect(unfunded.statusCode, unfunded.body).toBe(409);
    expect(unfunded.json().code).toBe('commerce_refund_unfunded');
    const refund = await signedRefund(
      (path, payload) => call('POST', path, payload),
      local.chain,
      OPERATOR,
      requestId,
      '10',
    );
    expect(refund.statusCode, refund.body).toBe(200);
    await indexer.tick();
    expect(await balance(address(BUYER))).toBe(start.buyer - dai('40'));
    expect(await statusOf(requestId)).toMatchObject({
      status: 'PARTIALLY_REFUNDED',
      type: 'REFUNDED',
      refundedAmount: '10',
      refundableAmount: '20',
    });

    const voided = await call('POST', url(requestId, 'void'), {
      reason: 'the rest is out of stock',
    });
    expect(voided.statusCode, voided.body).toBe(200);
    expect(voided.json()).toMatchObject({ requestId, voidedAmount: '20' });
    await indexer.tick();
    expect(await balance(address(BUYER))).toBe(start.buyer - dai('20'));
    expect(await balance(escrow())).toBe(start.escrow);
    expect(await balance(address(MERCHANT))).toBe(start.merchant + dai('29.7'));
    const final = await statusOf(requestId);
    expect(final).toMatchObject({
      type: 'VOIDED',
      capturedAmount: '30',
      refundedAmount: '10',
      voidedAmount: '20',
      capturableAmount: '0',
      canCapture: false,
      canVoid: false,
    });
    expect(final.events.map((event: { type: string }) => event.type)).toEqual([
      'AUTHORIZED',
      'CAPTURED',
      'REFUNDED',
      'VOIDED',
    ]);
    for (const event of final.events) expect(event.blockNumber).toMatch(/^[0-9]+$/);
  }, 90_000);

  it('expires on the chain’s clock: a capture is refused with nothing sent, and the buyer reclaims', async () => {
    const usdc = (value: string) => parseUnits(value, 6);
    const balance = (who: Address) => balanceOf(local.chain, local.chain.addresses.usdc, who);
    const buyerStart = await balance(address(BUYER));
    const escrowStart = await balance(escrow());
    const requestId = await authorized({
      amount: '5',
      paymentCurrency: 'USDC-base',
      preApprovalExpiry: 300,
      authorizationExpiry: 600,
    });
    expect(await statusOf(requestId)).toMatchObject({ status: 'AUTHORIZED', canCapture: true });
    expect(await balance(address(BUYER))).toBe(buyerStart - usdc('5'));

    // Ten minutes pass on the chain; the server's clock does not move.
    await local.chain.provider.request({ method: 'evm_increaseTime', params: [601] });
    await local.chain.provider.request({ method: 'evm_mine', params: [] });
    await expect
      .poll(async () => (await statusOf(requestId)).status, { timeout: 20_000 })
      .toBe('EXPIRED');
    // Past the authorization, the escrow still lets the operator release the hold (a void).
    expect(await statusOf(requestId)).toMatchObject({ canCapture: false, canVoid: true });

    const operator = address(OPERATOR);
    const nonce = await local.chain.client.getTransactionCount({ address: operator });
    const late = await call('POST', url(requestId, 'capture'), { captureAmount: '1' });
    expect(late.statusCode, late.body).toBe(409);
    expect(late.json().code).toBe('commerce_authorization_expired');
    expect(await local.chain.client.getTransactionCount({ address: operator })).toBe(nonce);

    const { paymentReference } = (await t.app
      .inject({
        method: 'GET',
        url: `/v2/request/${requestId}`,
        headers: { 'x-api-key': tenant.apiKey },
      })
      .then((res) => res.json())) as { paymentReference: Hex };
    await write(local.chain, accountOf(local.chain, BUYER), {
      address: local.chain.addresses.commerceEscrowWrapper,
      abi: wrapperAbi,
      functionName: 'reclaimPayment',
      args: [paymentReference],
    });
    await indexer.tick();
    expect(await statusOf(requestId)).toMatchObject({
      status: 'RECLAIMED',
      type: 'RECLAIMED',
      capturableAmount: '0',
    });
    expect(await balance(address(BUYER))).toBe(buyerStart);
    expect(await balance(escrow())).toBe(escrowStart);
  }, 90_000);
});
