import { eq } from 'drizzle-orm';
import { getAddress, keccak256, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentIntents } from '../../src/db/schema.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import type { BridgeTracker } from '../../src/secure-payments/bridge-tracker.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createRealClock, createTestApp, type TestApp } from '../app.ts';
import {
  type Api,
  type BridgeWorld,
  balanceOf,
  createLink,
  injectApi,
  payFromArbitrum as payLink,
  quoteFromArbitrum,
  sendOnArbitrum,
  startBridgeWorld,
  until,
} from '../bridge-world.ts';
import { accountOf, type StandIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testBridgeTracker, testDispatcher, testIndexer } from '../workers.ts';

/**
 * A link on Base paid with USDT from Arbitrum, end to end, on two local chains running the real
 * Request contracts and the local Across bridge (SpokePool and handler): `/pay?chain=&token=`
 * quotes the route through the fake aggregator over real HTTP, the payer sends the approval and
 * the deposit on Arbitrum and records it as the link's intent, the relayer fills it on Base,
 * where the handler pays the link and its protocol fee leg through the fee proxy; detection on
 * Base confirms it (`payment.confirmed`), and the bridge tracker follows the transfer to its end.
 * The harness (chains, fake aggregator, relayer) is test/bridge-world.ts.
 */

const PROTOCOL = getAddress(keccak256(toHex('crosschain e2e protocol')).slice(0, 42));

let world: BridgeWorld;
let base: StandIn;
let arbitrum: StandIn;
let t: TestApp;
let tenant: Tenant;
let api: Api;
let receiver: Receiver;
let indexer: Indexer;
let dispatcher: Dispatcher;
let tracker: BridgeTracker;

beforeAll(async () => {
  const clock = createRealClock();
  world = await startBridgeWorld({ clock });
  ({ base, arbitrum } = world);
  t = await createTestApp({
    env: {
      ...world.env,
      ALLOW_LOCAL_WEBHOOKS: 'true',
      PROTOCOL_FEE_BPS: '10',
      PROTOCOL_FEE_EVM_RECIPIENT: PROTOCOL,
    },
    transports: world.transports,
    clock,
  });
  tenant = await createTenant(t.db);
  api = injectApi(t.app, tenant.apiKey);
  receiver = await startReceiver();
  const hook = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { url: receiver.url },
  });
  expect(hook.statusCode, hook.body).toBe(201);
  indexer = testIndexer(t, { network: 'base', confirmations: 0 });
  dispatcher = testDispatcher(t);
  tracker = testBridgeTracker(t);
}, 180_000);
afterAll(async () => {
  await tracker?.stop();
  await indexer?.stop();
  await receiver?.close();
  await t?.close();
  await world?.close();
});

/**
 * A 25 USDC link on Base (with the protocol's fee leg), its route from Arbitrum's USDT quoted by
 * `/pay`, the approval and the deposit sent by test wallet 2 on Arbitrum, and the deposit
 * recorded as the link's intent.
 */
async function payFromArbitrum(seed: string) {
  const payee = getAddress(keccak256(toHex(`crosschain e2e payee ${seed}`)).slice(0, 42));
  const usdc = getAddress(base.chain.addresses.usdc);
  const usdt = getAddress(arbitrum.chain.addresses.usdt);
  const target = resolveTarget(t.chains, {
    walletAddress: payee,
    chainId: 8453,
    tokenAddress: usdc,
  });
  const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
  const { token, requestIds } = await createLink(api, destinationId, '25');
  const before = {
    payee: await balanceOf(base, usdc, payee),
    fee: await balanceOf(base, usdc, PROTOCOL),
    payer: await balanceOf(arbitrum, usdt, accountOf(arbitrum.chain, 2).address),
  };
  const { payer, deposit, intentId } = await payLink(world, api, token, 2);
  return { token, requestIds, payee, payer, deposit, before, intentId, usdc, usdt };
}

describe('a Base link paid with USDT from Arbitrum through the local bridge', () => {
  it('pays the payee and the fee leg exactly on Base, confirmed by detection, tracked to the end', async () => {
    const { token, requestIds, payee, payer, deposit, before, intentId, usdc, usdt } =
      await payFromArbitrum('paid');
    // The relayer fills the deposit on Base: the handler pays the link through the fee proxy.
    const filled = await until(
      () => world.relayer.deposits(),
      (deposits) => deposits.some((d) => d.status === 'filled'),
    );
    const fill = filled.find((d) => d.status === 'filled');
    if (!fill?.fillTxHash) throw new Error('the relayer filled nothing');
    // The protocol's 10 bps of 25 USDC, paid from the payee's share as a leg of its own.
    expect((await balanceOf(base, usdc, payee)) - before.payee).toBe(25_000_000n - 25_000n);
    expect((await balanceOf(base, usdc, PROTOCOL)) - before.fee).toBe(25_000n);
    expect(before.payer - (await balanceOf(arbitrum, usdt, payer.address))).toBeGreaterThan(
      25_000_000n,
    );

    // Detection on Base confirms the payment.
    await indexer.tick();
    await dispatcher.runOnce();
    const confirmed = await until(
      () => receiver.received.map((r) => r.body),
      (bodies) => bodies.some((b) => b.event === 'payment.confirmed'),
    );
    expect(confirmed.find((b) => b.event === 'payment.confirmed')).toMatchObject({
      requestId: requestIds[0],
      // The payee's leg: the gross less the payee-borne fee, paid by its own leg.
      amount: '24.975',
      txHash: fill.fillTxHash,
      network: 'base',
      // Across's fill names the deposit's depositor: the payer on Arbitrum, not the relayer.
      payerAddress: payer.address,
      payerEoaAddress: payer.address,
    });

    // The aggregator reports the transfer done: the tracker ends it, its payment already counted.
    await tracker.round();
    await tracker.round();
    const [row] = await t.db.select().from(paymentIntents).where(eq(paymentIntents.id, intentId));
    expect(row).toMatchObject({
      kind: 'bridge',
      status: 'executed',
      network: 'arbitrum-one',
      receivingTxHash: fill.fillTxHash,
    });
    const status = await t.app.inject({
      url: `/v2/request/${requestIds[0]}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(status.json()).toMatchObject({ hasBeenPaid: true, txHash: fill.fillTxHash });
    // A cross-chain payment: it left the payer on Arbitrum in the deposit, and arrived on Base
    // in the relayer's fill.
    const crosschain = {
      type: 'crosschain',
      sourceNetwork: 'arbitrum-one',
      destinationNetwork: 'base',
      sourceTxHash: deposit,
      destinationTxHash: fill.fillTxHash,
      amount: '24.975',
      payerAddress: payer.address,
      detectionSource: 'request-network',
    };
    expect(status.json().payments).toEqual([expect.objectContaining(crosschain)]);
    const search = async (query: string) => {
      const found = await api(`/v2/payments?requestId=${requestIds[0]}${query}`);
      expect(found.status, found.text).toBe(200);
      return JSON.parse(found.text).payments;
    };
    expect(await search('')).toEqual([expect.objectContaining(crosschain)]);
    expect(await search('&type=crosschain')).toEqual([expect.objectContaining(crosschain)]);
    expect(await search('&type=direct')).toEqual([]);
    const link = await t.app.inject({
      url: `/v2/secure-payments/${token}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(link.statusCode).toBe(409);
  });
  it('pays a DAI link from Arbitrum’s USDT: the payee’s DAI exact, in its 18 decimals', async () => {
    const payee = getAddress(keccak256(toHex('crosschain e2e dai payee')).slice(0, 42));
    const dai = getAddress(base.chain.addresses.dai);
    const target = resolveTarget(t.chains, {
      walletAddress: payee,
      chainId: 8453,
      tokenAddress: dai,
    });
    const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
    const { token } = await createLink(api, destinationId, '2.5');
    const payer = accountOf(arbitrum.chain, 5);
    // paymentOptions offers the DAI link Arbitrum's USDT, which the aggregator routes.
    const display = await t.app.inject({
      url: `/v2/secure-payments/${token}?wallet=${payer.address}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(display.json().paymentOptions.ARBITRUM.USDT).toMatchObject({ neededAmount: '2.5' });
    const answer = await quoteFromArbitrum(api, token, payer.address);
    const before = {
      payee: await balanceOf(base, dai, payee),
      fee: await balanceOf(base, dai, PROTOCOL),
    };
    const receipts = await sendOnArbitrum(world, payer, answer.transactions);
    for (const receipt of receipts) expect(receipt.status).toBe('success');
    const deposit = receipts[1]?.transactionHash;
    const intent = await api(`/v2/secure-payments/${token}/intent`, {
      chain: 'ARBITRUM',
      token: 'DAI',
      txHash: deposit,
      executionKind: 'evm_cross_chain',
      payerAddress: payer.address,
      sourceToken: 'USDT',
      sourceAmount: answer.metadata.sourceAmount,
    });
    expect(intent.status, intent.text).toBe(200);
    await until(
      () => world.relayer.deposits(),
      (deposits) => deposits.some((d) => d.depositTxHash === deposit && d.status === 'filled'),
    );
    // 2.5 DAI less the protocol's 10 bps, each to the wei.
    expect((await balanceOf(base, dai, payee)) - before.payee).toBe(2_497_500_000_000_000_000n);
    expect((await balanceOf(base, dai, PROTOCOL)) - before.fee).toBe(2_500_000_000_000_000n);
  });

  it('refunds a deposit the bridge never filled: payment.refunded, the payer whole, the link payable', async () => {
    world.relayer.pause();
    const { token, requestIds, payer, deposit, before, intentId, usdt } =
      await payFromArbitrum('refunded');
    const seen = await until(
      () => world.relayer.deposits(),
      (deposits) => deposits.some((d) => d.depositTxHash === deposit),
    );
    const held = seen.find((d) => d.depositTxHash === deposit);
    if (!held) throw new Error('the relayer did not see the deposit');
    world.relayer.hold(42161, held.relayData.depositId);
    world.relayer.resume();
    // Past the deposit's fill deadline on both chains: the relayer refunds it on Arbitrum.
    for (const chain of [arbitrum, base]) {
      await chain.chain.provider.request({ method: 'evm_increaseTime', params: [toHex(601)] });
      await chain.chain.provider.request({ method: 'evm_mine' });
    }
    world.relayer.wake();
    await until(
      () => world.relayer.deposits().find((d) => d.depositTxHash === deposit)?.status,
      (status) => status === 'refunded',
    );
    expect(await balanceOf(arbitrum, usdt, payer.address)).toBe(before.payer);

    await tracker.round();
    const [row] = await t.db.select().from(paymentIntents).where(eq(paymentIntents.id, intentId));
    expect(row).toMatchObject({ status: 'refunded' });
    await dispatcher.runOnce();
    const refunded = await until(
      () => receiver.received.map((r) => r.body),
      (bodies) => bodies.some((b) => b.event === 'payment.refunded'),
    );
    expect(refunded.find((b) => b.event === 'payment.refunded')).toMatchObject({
      requestId: requestIds[0],
      refundedTo: payer.address,
      txHash: deposit,
      network: 'arbitrum-one',
      securePaymentToken: token,
    });
    const link = await api(`/v2/secure-payments/${token}`);
    expect(link.status).toBe(200);
    // Where the transfer stands is on the link: how the page that sent it learns it came back.
    expect(JSON.parse(link.text).bridgeTransfers).toEqual([
      { txHash: deposit, status: 'refunded' },
    ]);
    // And answered a new route to pay it with.
    await quoteFromArbitrum(api, token, payer.address);
  });
});
