import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { type Address, getAddress, keccak256, toFunctionSelector, toHex } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { paymentIntents } from '../../src/db/schema.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import { spokePoolArtifact } from '../../src/sandbox/across-artifacts.ts';
import type { BridgeTracker } from '../../src/secure-payments/bridge-tracker.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createRealClock, createTestApp, type TestApp } from '../app.ts';
import {
  type Api,
  type BridgeWorld,
  balanceOf,
  createLink,
  injectApi,
  payFromArbitrum,
  quoteFromArbitrum,
  type RouteAnswer,
  recordTransfer,
  sendOnArbitrum,
  startBridgeWorld,
  until,
} from '../bridge-world.ts';
import { accountOf } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testBridgeTracker, testDispatcher, testIndexer } from '../workers.ts';

/**
 * What goes wrong on the way of a cross-chain payment, end to end through payreq's HTTP API on
 * two local chains running the real Request contracts and the local Across (test/bridge-world.ts:
 * the fake aggregator over real HTTP, the relayer filling deposits on Base):
 * - a transfer the bridge never fills and the aggregator reports FAILED: `payment.failed` as
 *   docs/webhooks.md describes it, once, and the link payable again;
 * - a quote sent after its deadline: the SpokePool refuses the stale deposit, nothing moves;
 *   `/pay` asks the aggregator again rather than serve it, and the refreshed step pays the link;
 * - a route whose destination call pays someone else: refused with 502 by the request's `/pay`
 *   and left out of its routes, no calldata answered;
 * - the aggregator down: 503 within the time bound, then at once from the open breaker, which
 *   closes by itself once the aggregator answers again.
 * The tracker's process killed mid-way is test/e2e/crosschain-tracker-restart.test.ts.
 */

const THIEF: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

let world: BridgeWorld;
let t: TestApp;
let tenant: Tenant;
let api: Api;
let receiver: Receiver;
let secret: string;
let indexer: Indexer;
let dispatcher: Dispatcher;
let tracker: BridgeTracker;

beforeAll(async () => {
  // The chains keep the wall clock's time: so do the app and the fake.
  const clock = createRealClock();
  world = await startBridgeWorld({ clock });
  t = await createTestApp({
    env: {
      ...world.env,
      ALLOW_LOCAL_WEBHOOKS: 'true',
      LIFI_TIMEOUT_MS: '400',
      LIFI_BREAKER_FAILURES: '2',
      LIFI_BREAKER_HALF_OPEN_MS: '500',
    },
    transports: world.transports,
    clock,
  });
  tenant = await createTenant(t.db);
  api = injectApi(t.app, tenant.apiKey);
  receiver = await startReceiver();
  const hook = await api('/v1/webhook', { url: receiver.url });
  expect(hook.status, hook.text).toBe(201);
  secret = JSON.parse(hook.text).secret;
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
beforeEach(() => {
  world.fake.payElsewhere(null);
  world.fake.setQuoteLifetime(600);
  world.fake.recover();
});

/** A 25 USDC link on Base to a payee of its own. */
async function baseLink(seed: string) {
  const payee = getAddress(keccak256(toHex(`crosschain failures ${seed}`)).slice(0, 42));
  const target = resolveTarget(t.chains, {
    walletAddress: payee,
    chainId: 8453,
    tokenAddress: world.base.chain.addresses.usdc,
  });
  const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
  return { payee, ...(await createLink(api, destinationId, '25')) };
}

const intentRow = async (id: string) =>
  (await t.db.select().from(paymentIntents).where(eq(paymentIntents.id, id)))[0];
const asked = (path: string) => world.fake.received.filter((r) => r.path === path).length;
const usdc = () => getAddress(world.base.chain.addresses.usdc);
const usdt = () => getAddress(world.arbitrum.chain.addresses.usdt);

describe('a transfer the bridge never delivers', () => {
  it('ends failed when the aggregator says so: payment.failed as documented, once; the link payable again', async () => {
    const { token, requestIds, payee } = await baseLink('failed');
    world.relayer.pause();
    const { payer, deposit, intentId } = await payFromArbitrum(world, api, token, 3);
    const seen = await until(
      () => world.relayer.deposits().find((d) => d.depositTxHash === deposit),
      (found) => found !== undefined,
    );
    if (!seen) throw new Error('the relayer did not see the deposit');
    world.relayer.hold(42161, seen.relayData.depositId);
    world.relayer.resume();

    // Not yet seen by the aggregator: the transfer stays where it is.
    await tracker.round();
    expect((await intentRow(intentId))?.status).toBe('bridging');
    world.fake.setTransfer(deposit, { status: 'FAILED', substatus: 'SLIPPAGE_EXCEEDED' });
    await tracker.round();
    await tracker.round();
    const reason = 'bridge transfer failed (SLIPPAGE_EXCEEDED)';
    expect(await intentRow(intentId)).toMatchObject({ status: 'failed', failureReason: reason });

    await dispatcher.runOnce();
    const deliveries = await until(
      () => receiver.received.filter((r) => r.body.event === 'payment.failed'),
      (found) => found.length > 0,
    );
    await dispatcher.runOnce();
    expect(receiver.received.filter((r) => r.body.event === 'payment.failed')).toHaveLength(1);
    const [delivery] = deliveries;
    if (!delivery) throw new Error('no payment.failed delivered');
    // docs/webhooks.md, `payment.failed` of a cross-chain transfer: these fields and no others.
    expect(delivery.body).toEqual({
      event: 'payment.failed',
      requestId: requestIds[0],
      requestID: requestIds[0],
      paymentReference: expect.stringMatching(/^0x[0-9a-f]{16}$/),
      subStatus: 'failed',
      paymentProcessor: 'request-network',
      timestamp: expect.any(String),
      failureReason: reason,
      network: 'arbitrum-one',
      securePaymentToken: token,
      payerAddress: payer.address,
      txHash: deposit,
    });
    expect(new Date(String(delivery.body.timestamp)).toISOString()).toBe(delivery.body.timestamp);
    expect(delivery.headers['x-request-network-signature']).toBe(
      createHmac('sha256', secret).update(delivery.rawBody).digest('hex'),
    );

    // Nothing reached Base; the link is payable again, a new route answered for it.
    expect(await balanceOf(world.base, usdc(), payee)).toBe(0n);
    expect((await api(`/v2/secure-payments/${token}`)).status).toBe(200);
    const again = await quoteFromArbitrum(api, token, payer.address);
    expect(again.transactions[1]?.to).toBe(getAddress(world.arbitrum.chain.addresses.spokePool));
  });
});

describe('a quote that expired', () => {
  it('is refused by the SpokePool when sent late, nothing moved; a fresh route and the refreshed step pay', async () => {
    const { token, requestIds, payee } = await baseLink('expired');
    const payer = accountOf(world.arbitrum.chain, 4);
    world.fake.setQuoteLifetime(2);
    const stale = await quoteFromArbitrum(api, token, payer.address);
    const { quoteExpiresAt, executionDeadline } = stale.metadata;
    expect(quoteExpiresAt).toBe(executionDeadline);
    expect(quoteExpiresAt - Date.now() / 1000).toBeLessThanOrEqual(2);
    // Wait out the deadline on the wall clock, which the chain's blocks keep (or are ahead of).
    await until(
      () => Date.now() / 1000,
      (now) => now > quoteExpiresAt + 1,
      10_000,
    );

    // Sent anyway: the approval goes through, the deposit is refused on chain
    // (`InvalidFillDeadline`), nothing moves.
    const spokePool = getAddress(world.arbitrum.chain.addresses.spokePool);
    const deposits = () =>
      world.arbitrum.chain.client.readContract({
        address: spokePool,
        abi: spokePoolArtifact.abi,
        functionName: 'numberOfDeposits',
      });
    const before = {
      payer: await balanceOf(world.arbitrum, usdt(), payer.address),
      pool: await balanceOf(world.arbitrum, usdt(), spokePool),
      deposits: await deposits(),
    };
    const [approval, bridge] = stale.transactions;
    if (!approval || !bridge) throw new Error('no approval and bridge call');
    const refused = toFunctionSelector('InvalidFillDeadline()');
    await expect(
      world.arbitrum.chain.client.call({
        account: payer.address,
        to: bridge.to,
        data: bridge.data,
      }),
    ).rejects.toThrow(refused);
    const [approved] = await sendOnArbitrum(world, payer, [approval]);
    expect(approved?.status).toBe('success');
    await expect(sendOnArbitrum(world, payer, [bridge])).rejects.toThrow(refused);
    expect(await balanceOf(world.arbitrum, usdt(), payer.address)).toBe(before.payer);
    expect(await balanceOf(world.arbitrum, usdt(), spokePool)).toBe(before.pool);
    expect(await deposits()).toBe(before.deposits);

    // The aggregator's quotes live long again. /pay does not serve the expired route: it asks
    // the aggregator for a fresh one.
    world.fake.setQuoteLifetime(600);
    const quotes = asked('/v1/quote/contractCalls');
    const fresh = await quoteFromArbitrum(api, token, payer.address);
    expect(asked('/v1/quote/contractCalls')).toBe(quotes + 1);
    expect(fresh.metadata.rawStep.id).not.toBe(stale.metadata.rawStep.id);
    expect(fresh.metadata.quoteExpiresAt).toBeGreaterThan(Date.now() / 1000 + 60);

    // The expired step refreshed: its fresh transaction, sent, pays the link on Base.
    const refreshed = await api(`/v2/secure-payments/${token}/refresh-step-transaction`, {
      step: stale.metadata.rawStep,
    });
    expect(refreshed.status, refreshed.text).toBe(200);
    const step: { transactionRequest: RouteAnswer['transactions'][number] } & Pick<
      RouteAnswer['metadata'],
      'quoteExpiresAt'
    > = JSON.parse(refreshed.text);
    expect(step.quoteExpiresAt).toBeGreaterThan(Date.now() / 1000 + 60);
    const [sent] = await sendOnArbitrum(world, payer, [step.transactionRequest]);
    expect(sent?.status).toBe('success');
    if (!sent) throw new Error('no deposit sent');
    expect(await deposits()).toBe(before.deposits + 1);
    const intentId = await recordTransfer(
      api,
      token,
      sent.transactionHash,
      payer.address,
      stale.metadata.sourceAmount,
    );
    const filled = await until(
      () => world.relayer.deposits().find((d) => d.depositTxHash === sent.transactionHash),
      (found) => found?.status === 'filled',
    );
    expect(filled?.status).toBe('filled');
    expect(await balanceOf(world.base, usdc(), payee)).toBe(25_000_000n);
    await indexer.tick();
    await tracker.round();
    await tracker.round();
    expect((await intentRow(intentId))?.status).toBe('executed');
    const status = JSON.parse((await api(`/v2/request/${requestIds[0]}`)).text);
    expect(status).toMatchObject({ hasBeenPaid: true, txHash: filled?.fillTxHash });
  });
});

describe('a route whose destination call pays someone else', () => {
  it('is refused by the request’s /pay with 502 and left out of its routes, no calldata answered', async () => {
    const created = await api('/v2/request', {
      payee: getAddress(keccak256(toHex('crosschain failures request')).slice(0, 42)),
      amount: '10',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
    });
    expect(created.status, created.text).toBe(201);
    const { requestId } = JSON.parse(created.text);
    const wallet = accountOf(world.arbitrum.chain, 5).address;
    world.fake.payElsewhere(THIEF);
    const pay = await api(
      `/v2/request/${requestId}/pay?wallet=${wallet}&chain=ARBITRUM&token=USDT`,
    );
    expect(pay.status).toBe(502);
    expect(JSON.parse(pay.text)).toMatchObject({
      code: 'crosschain_route_refused',
      message: `The cross-chain route offered does not make the payment asked for: destination call 1: it pays ${THIEF}`,
    });
    expect(pay.text).not.toContain('transactions');
    expect(pay.text.toLowerCase()).not.toContain(
      world.arbitrum.chain.addresses.spokePool.toLowerCase(),
    );
    const routes = await api(`/v2/request/${requestId}/routes?wallet=${wallet}`);
    expect(routes.status, routes.text).toBe(200);
    expect(JSON.parse(routes.text).routes.map((route: { id: string }) => route.id)).toEqual([
      'REQUEST_NETWORK_PAYMENT',
    ]);
    // Honest again: the route is asked again, and answered.
    world.fake.payElsewhere(null);
    const honest = await api(
      `/v2/request/${requestId}/pay?wallet=${wallet}&chain=ARBITRUM&token=USDT`,
    );
    expect(honest.status, honest.text).toBe(200);
  });
});

describe('the aggregator down', () => {
  it('answers 503 within its bound, then at once from the open breaker, which closes by itself', async () => {
    const { token } = await baseLink('breaker');
    const wallet = accountOf(world.arbitrum.chain, 6).address;
    const pay = () =>
      api(`/v2/secure-payments/${token}/pay?wallet=${wallet}&chain=ARBITRUM&token=USDT`);
    world.fake.fail({ kind: 'hang' });
    let started = Date.now();
    const hung = await pay();
    expect(hung.status).toBe(503);
    expect(JSON.parse(hung.text).code).toBe('crosschain_unavailable');
    expect(Date.now() - started).toBeLessThan(2_000);
    world.fake.fail({ kind: 'error', status: 500 });
    expect((await pay()).status).toBe(503);

    // Two failures in a row: open. Answered at once, the aggregator not asked.
    const received = world.fake.received.length;
    started = Date.now();
    const open = await pay();
    expect(open.status).toBe(503);
    expect(open.headers['retry-after']).toBe('1');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(world.fake.received.length).toBe(received);
    world.fake.recover();
    expect((await pay()).status).toBe(503);
    expect(world.fake.received.length).toBe(received);

    // Past the half-open period, the next call probes the aggregator, and the breaker closes.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const probe = await pay();
    expect(probe.status, probe.text).toBe(200);
    expect(world.fake.received.length).toBe(received + 1);
    const closed = await api(
      `/v2/secure-payments/${token}/pay?wallet=${accountOf(world.arbitrum.chain, 7).address}&chain=ARBITRUM&token=USDT`,
    );
    expect(closed.status, closed.text).toBe(200);
    expect(world.fake.received.length).toBe(received + 2);
  });
});
