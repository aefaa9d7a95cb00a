import { type Address, decodeFunctionData, getAddress, keccak256, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeDepositV3 } from '../../src/crosschain/across.ts';
import { erc20Abi, erc20FeeProxyAbi } from '../../src/payments/abis.ts';
import type { FakeAggregator } from '../../src/sandbox/aggregator/fake-aggregator.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { type StandIn, standIn } from '../chain.ts';
import { type CrossChainWorld, SPOKE_POOL, startCrossChainWorld } from '../crosschain-world.ts';
import { createTenant, type Tenant } from '../fixtures.ts';

/**
 * A request (not a link) paid from another chain: `GET /v2/request/{id}/pay?chain=&token=`
 * (and v1 by payment reference) answers the route directly, in the reference's shape, and
 * `/routes` lists a route per source the aggregator routes, from the same cache. A Base stand-in
 * is paid from an Arbitrum one through the fake aggregator over real HTTP.
 */

let base: StandIn;
let arbitrum: StandIn;
let world: CrossChainWorld;
let fake: FakeAggregator;
let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  base = await standIn('base');
  world = await startCrossChainWorld(base);
  ({ arbitrum, fake } = world);
  t = await createTestApp({
    env: { ...base.env, ...world.env },
    transports: { ...base.transports, ...world.transports },
  });
  world.useClock(t.clock);
  tenant = await createTenant(t.db);
}, 180_000);
afterAll(async () => {
  await t?.close();
  await world?.close();
  await base?.chain.close();
});

let wallets = 0;
function freshWallet(): Address {
  return getAddress(keccak256(toHex(`crosschain request ${++wallets}`)).slice(0, 42));
}

const quotesAsked = () =>
  fake.received.filter((request) => request.path === '/v1/quote/contractCalls').length;

describe('GET /v2/request/{id}/pay?chain=&token= (and v1)', () => {
  it('answers the cross-chain calldata directly, the request’s payment the route’s destination call', async () => {
    const payee = freshWallet();
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: { 'x-api-key': tenant.apiKey },
      payload: {
        payee,
        amount: '10',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { requestId, paymentReference } = created.json();
    const payer = freshWallet();
    const query = `wallet=${payer}&chain=ARBITRUM&token=USDT`;
    const res = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestId}/pay?${query}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const now = Math.floor(t.clock.now().getTime() / 1000);
    expect(body.metadata).toMatchObject({
      stepsRequired: 2,
      needsApproval: true,
      approvalTransactionIndex: 0,
      paymentTransactionIndex: 1,
      routeType: 'crosschain',
      quoteExpiresAt: now + 120,
      executionDeadline: now + 300,
      sourceAmount: '10.510511',
    });
    const [approval, bridge] = body.transactions;
    expect(approval).toMatchObject({
      to: arbitrum.chain.addresses.usdt,
      value: { type: 'BigNumber', hex: '0x0' },
      chainType: 'evm',
    });
    expect(decodeFunctionData({ abi: erc20Abi, data: approval.data }).args).toEqual([
      SPOKE_POOL,
      10_510_511n,
    ]);
    const [call] = decodeDepositV3(bridge.data).message.calls;
    expect(call && decodeFunctionData({ abi: erc20FeeProxyAbi, data: call.callData }).args).toEqual(
      [
        getAddress(base.chain.addresses.usdc),
        payee,
        10_000_000n,
        paymentReference,
        0n,
        '0x0000000000000000000000000000000000000000',
      ],
    );
    // v1, by payment reference: the same route, from the cache.
    const asked = quotesAsked();
    const v1 = await t.app.inject({
      method: 'GET',
      url: `/v1/request/${paymentReference}/pay?${query}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(v1.statusCode, v1.body).toBe(200);
    expect(quotesAsked()).toBe(asked);
    expect(v1.json().transactions[1].data).toBe(bridge.data);
    expect(v1.json().metadata.routeType).toBe('crosschain');
  });

  it('lists the cross-chain routes beside the direct one, each /pay’s cached quote', async () => {
    const payee = freshWallet();
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { payee, amount: '20', invoiceCurrency: 'USDC-base', paymentCurrency: 'USDC-base' },
    });
    const { requestId, paymentReference } = created.json();
    const wallet = freshWallet();
    const before = quotesAsked();
    const res = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestId}/routes?wallet=${wallet}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(res.statusCode, res.body).toBe(200);
    // Every pegged source is asked at once: Base's USDT (no route: the bridge crosses chains),
    // Arbitrum's USDC, USDT and USDT0 (no route: the fake routes no USDT0). Those without one
    // are left out.
    expect(quotesAsked()).toBe(before + 4);
    const { routes } = res.json();
    expect(routes.map((route: { id: string }) => route.id)).toEqual([
      'REQUEST_NETWORK_PAYMENT',
      'ARBITRUM_USDC',
      'ARBITRUM_USDT',
    ]);
    // (20 + 0.5) / 0.999 = 20.5205205..., up to 20.520521; the bridge keeps 0.5 + 10 bps of
    // it, 0.52052 (and delivers one base unit more than asked).
    expect(routes[2]).toEqual({
      id: 'ARBITRUM_USDT',
      fee: 0.52052,
      feeBreakdown: [
        {
          type: 'crosschain',
          stage: 'sending',
          provider: 'across',
          amount: '0.52052',
          amountInUSD: '0.52',
          currency: 'USDT',
          receiverAddress: SPOKE_POOL,
          network: 'arbitrum-one',
          rateProvider: 'lifi',
        },
      ],
      speed: 30,
      price_impact: 0,
      chain: 'ARBITRUM',
      token: 'USDT',
    });
    const v1 = await t.app.inject({
      method: 'GET',
      url: `/v1/request/${paymentReference}/routes?wallet=${wallet}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(v1.json()).toEqual(res.json());
    // The routes found came from the cache; the two sources without one were asked again.
    expect(quotesAsked()).toBe(before + 6);
    const pay = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestId}/pay?wallet=${wallet}&chain=ARBITRUM&token=USDT`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(pay.statusCode, pay.body).toBe(200);
    expect(quotesAsked()).toBe(before + 6);
  });
});
