import { encodeFunctionData, getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  apiKey,
  BUYER_WALLET,
  type BuyerCall as Call,
  commerceRowOf,
  createdPayment,
  byPayToken as get,
  local,
  post,
  sendBuyerCalls as send,
  setupCommerceApp,
  status,
  t,
  tenantA,
  tenantB,
  wallet,
} from '../../test/commerce.ts';
import { erc20Abi } from '../payments/abis.ts';
import { commerceWrapperAbi } from '../payments/commerce/abi.ts';

/**
 * The buyer's reclaim by pay token (`GET /v2/commerce-payments/token/{payToken}/reclaim`) on the
 * real app and a local chain standing in for Base: refused while nothing is held, before the
 * authorization expires by the chain's clock, and for any wallet but the payer's; after it,
 * the wrapper's `reclaimPayment` that gives the buyer back exactly what was held, all of it or
 * what a partial capture left, which the views offer as `canReclaim`.
 */

setupCommerceApp({ realClock: true });

const STRANGER = 6;
const HOUR = 3_600;

/** A payment of `amount` USDC authorized from the buyer's wallet through the page's routes. */
async function heldPayment(amount: string) {
  const created = await createdPayment({
    amount,
    preApprovalExpiry: HOUR,
    authorizationExpiry: 2 * HOUR,
  });
  const row = await commerceRowOf(created.requestId);
  const buyer = wallet(BUYER_WALLET).address;
  const calls: Call[] = (await get(`${row.payToken}/authorize?wallet=${buyer}`)).json()
    .transactions;
  const hashes = await send(BUYER_WALLET, calls);
  const recorded = await t.app.inject({
    method: 'POST',
    url: `/v2/commerce-payments/token/${row.payToken}/authorization`,
    headers: apiKey(tenantA),
    payload: { txHash: hashes.at(-1) },
  });
  expect(recorded.json().status, recorded.body).toBe('AUTHORIZED');
  return row;
}

/**
 * The chain's clock (the escrow's, and the one the checks judge by) a minute past the payment's
 * authorization expiry: measured from the chain's latest block, as a snapshot's revert may have
 * set it back after the payment's expiries were judged by its clock.
 */
async function expireOnChain(row: { readonly authorizationExpiry: number }): Promise<void> {
  const latest = await local.chain.client.getBlock({ blockTag: 'latest' });
  const seconds = row.authorizationExpiry + 60 - Number(latest.timestamp);
  await local.chain.provider.request({ method: 'evm_increaseTime', params: [seconds] });
  await local.chain.provider.request({ method: 'evm_mine', params: [] });
}

const usdc = () => getAddress(t.chains.currency('USDC-base')?.address ?? '');
const balanceOf = (owner: `0x${string}`) =>
  local.chain.client.readContract({
    address: usdc(),
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  });

describe('GET /v2/commerce-payments/token/{payToken}/reclaim', () => {
  it('refuses a payment nothing is held of (409), and another account’s (404)', async () => {
    const row = await commerceRowOf((await createdPayment()).requestId);
    const buyer = wallet(BUYER_WALLET).address;
    expect((await get(row.payToken)).json()).toMatchObject({
      status: 'PENDING',
      canReclaim: false,
    });
    const res = await get(`${row.payToken}/reclaim?wallet=${buyer}`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'commerce_nothing_to_reclaim',
      message:
        'Nothing is held to reclaim: the payment is not authorized, or was captured, released or reclaimed',
    });
    expect((await get(`${row.payToken}/reclaim?wallet=${buyer}`, apiKey(tenantB))).statusCode).toBe(
      404,
    );
  });

  it('refuses a hold before its authorization expires (409), another wallet (403), no address (400)', async () => {
    const row = await heldPayment('4');
    const buyer = wallet(BUYER_WALLET).address;
    const early = await get(`${row.payToken}/reclaim?wallet=${buyer}`);
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({
      code: 'commerce_authorization_not_expired',
      message: `The authorization holds until ${new Date(row.authorizationExpiry * 1000).toISOString()} (authorizationExpiry): it can be reclaimed after`,
    });
    const stranger = wallet(STRANGER).address;
    const other = await get(`${row.payToken}/reclaim?wallet=${stranger}`);
    expect(other.statusCode).toBe(403);
    expect(other.json()).toMatchObject({
      code: 'commerce_not_payer',
      message: `Only the payer can reclaim this payment: ${buyer}, not ${stranger}`,
    });
    for (const query of ['', '?wallet=0x12']) {
      expect((await get(`${row.payToken}/reclaim${query}`)).statusCode).toBe(400);
    }
  });

  it('answers reclaimPayment once the chain’s clock passes the expiry, which returns every unit held', async () => {
    const row = await heldPayment('12.345678');
    const buyer = wallet(BUYER_WALLET).address;
    const before = await balanceOf(buyer);
    // The chain's clock, not the server's, passes the expiry (the escrow judges by it).
    await expireOnChain(row);
    // The view reads it as expired and still held: the buyer may reclaim.
    await expect
      .poll(async () => (await get(row.payToken)).json(), { timeout: 5_000 })
      .toMatchObject({ status: 'EXPIRED', heldAmount: '12.345678', canReclaim: true });
    const res = await get(`${row.payToken}/reclaim?wallet=${buyer.toLowerCase()}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().transactions).toEqual([
      {
        to: getAddress(row.wrapper),
        data: encodeFunctionData({
          abi: commerceWrapperAbi,
          functionName: 'reclaimPayment',
          args: [`0x${row.paymentReference}`],
        }),
        value: { type: 'BigNumber', hex: '0x0' },
      },
    ]);
    await send(BUYER_WALLET, res.json().transactions);
    expect((await balanceOf(buyer)) - before).toBe(12_345_678n);
  });

  it('offers what a partial capture left once the chain’s clock passes the expiry, though the payment reads PAID', async () => {
    const row = await heldPayment('50');
    const capture = await post(`/v2/commerce-payments/${row.requestId}/capture`, {
      captureAmount: '30',
    });
    expect(capture.statusCode, capture.body).toBe(200);
    const buyer = wallet(BUYER_WALLET).address;
    // Before the expiry the merchant may still capture the rest: not the buyer's to reclaim.
    const partly = { status: 'PAID', capturedAmount: '30', heldAmount: '20' };
    expect((await get(row.payToken)).json()).toMatchObject({ ...partly, canReclaim: false });
    expect((await status(row.requestId)).json()).toMatchObject({
      status: 'PAID',
      capturableAmount: '20',
      canReclaim: false,
    });
    expect((await get(`${row.payToken}/reclaim?wallet=${buyer}`)).json()).toMatchObject({
      code: 'commerce_authorization_not_expired',
    });

    await expireOnChain(row);
    await expect
      .poll(async () => (await get(row.payToken)).json(), { timeout: 5_000 })
      .toMatchObject({ ...partly, canReclaim: true });
    expect((await status(row.requestId)).json()).toMatchObject({
      status: 'PAID',
      canCapture: false,
      canReclaim: true,
    });
    const res = await get(`${row.payToken}/reclaim?wallet=${buyer}`);
    expect(res.statusCode, res.body).toBe(200);
    const before = await balanceOf(buyer);
    await send(BUYER_WALLET, res.json().transactions);
    // Exactly the remainder: the 30 captured stay the merchant's.
    expect((await balanceOf(buyer)) - before).toBe(20_000_000n);
  });
});
