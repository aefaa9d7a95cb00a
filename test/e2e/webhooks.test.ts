import { createHmac, timingSafeEqual } from 'node:crypto';
import { encodeFunctionData, getAddress, type Hex } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import { erc20Abi, erc20FeeProxyAbi } from '../../src/payments/abis.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, SHOP_ORIGIN, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * The promise to merchants, end to end: money arrives on chain, the indexer finds it once it
 * is deep enough, and a signed webhook reaches a real HTTP receiver, once per event, retried
 * until it is taken.
 */

const CONFIRMATIONS = 2;

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let secret: string;
let indexer: Indexer;
let dispatcher: Dispatcher;

beforeAll(async () => {
  local = await standIn('base');
  t = await createTestApp({
    env: { ...local.env, CONFIRMATIONS_BASE: String(CONFIRMATIONS) },
    transports: local.transports,
  });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  indexer = testIndexer(t, { confirmations: CONFIRMATIONS });
  dispatcher = testDispatcher(t);
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-client-id': tenant.backendClientId },
    payload: { url: receiver.url },
  });
  expect(registered.statusCode, registered.body).toBe(201);
  secret = registered.json().secret;
  expect(secret).toMatch(/^whsec_/);
  // The receiver checks deliveries as one written for the reference API would.
  receiver.verifyWith(secret);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
  await local.chain.close();
});
// The chain is not reverted between tests: the indexer's checkpoint moves forward with it,
// as on a real network (the reorganisation test makes its own fork).
beforeEach(() => {
  receiver.received.length = 0;
});
afterEach(() => {
  expect(receiver.refused).toEqual([]);
});

const clientHeaders = () => ({ 'x-client-id': tenant.backendClientId });

/** `payment.confirmed` / `payment.partial` as the reference documents them (api-facts §1.6). */
const PAYMENT_PAYLOAD_TYPES = {
  event: 'string',
  requestId: 'string',
  requestID: 'string',
  paymentReference: 'string',
  explorer: 'string',
  amount: 'string',
  totalAmountPaid: 'string',
  expectedAmount: 'string',
  timestamp: 'string',
  txHash: 'string',
  payerAddress: 'string',
  payerEoaAddress: 'string',
  payee: 'string',
  network: 'string',
  currency: 'string',
  paymentCurrency: 'string',
  isCryptoToFiat: 'boolean',
  subStatus: 'string',
  paymentProcessor: 'string',
  fees: 'array',
  clientId: 'string',
  origin: 'null',
};

function typesOf(body: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => [
      key,
      value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value,
    ]),
  );
}

async function linkFor(
  amount: string,
  walletIndex = 1,
): Promise<{ token: string; requestId: string }> {
  const target = resolveTarget(t.chains, {
    walletAddress: accountOf(local.chain, walletIndex).address,
    chainId: 8453,
    tokenAddress: local.chain.addresses.usdc,
  });
  const destination = await activateDestination(t.db, t.clock, tenant.accountId, target);
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: clientHeaders(),
    payload: { requests: [{ destinationId: destination.destinationId, amount }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { token: res.json().token, requestId: res.json().requestIds[0] };
}

async function mine(blocks: number): Promise<void> {
  for (let i = 0; i < blocks; i++) await local.chain.provider.request({ method: 'evm_mine' });
}

/** The receiver's own check, written here with node:crypto only: both header versions. */
function verify(rawBody: string, headers: Record<string, unknown>): boolean {
  const v1 = createHmac('sha256', secret).update(rawBody).digest();
  const v2 = createHmac('sha256', secret)
    .update(`${headers['x-service-timestamp']}.${rawBody}`)
    .digest();
  const sent1 = Buffer.from(String(headers['x-service-signature']), 'hex');
  const sent2 = Buffer.from(String(headers['x-service-signature-v2']), 'hex');
  return (
    sent1.length === 32 &&
    timingSafeEqual(v1, sent1) &&
    sent2.length === 32 &&
    timingSafeEqual(v2, sent2)
  );
}

async function payLink(token: string, payerIndex = 2): Promise<Hex[]> {
  const payer = accountOf(local.chain, payerIndex);
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?wallet=${payer.address}`,
    headers: clientHeaders(),
  });
  return sendAll(local.chain, payer, res.json().transactions);
}

describe('payment webhooks', () => {
  it('sends payment.confirmed, .client_id and .checkout once the payment is deep enough, signed', async () => {
    const { token, requestId } = await linkFor('12.5');
    const [, paymentTx] = await payLink(token);

    expect((await indexer.tick()).recorded).toBe(0); // mined, not yet confirmed
    await mine(CONFIRMATIONS);
    expect((await indexer.tick()).recorded).toBe(1);
    await dispatcher.runOnce();
    const received = await receiver.waitFor(3);

    expect(received.map((r) => r.body.event).sort()).toEqual([
      'payment.confirmed',
      'payment.confirmed.checkout',
      'payment.confirmed.client_id',
    ]);
    for (const delivery of received) {
      expect(verify(delivery.rawBody, delivery.headers), String(delivery.body.event)).toBe(true);
      expect(delivery.headers['x-service-delivery']).toMatch(/^[0-9A-Z]{26}$/);
      expect(delivery.headers['x-service-retry-count']).toBe('0');
      expect(delivery.headers['x-service-test']).toBeUndefined();
    }
    const confirmed = received.find((r) => r.body.event === 'payment.confirmed')?.body;
    expect(confirmed).toMatchObject({
      requestId,
      requestID: requestId,
      amount: '12.5',
      totalAmountPaid: '12.5',
      expectedAmount: '12.5',
      txHash: paymentTx,
      payerAddress: accountOf(local.chain, 2).address,
      // The wallet that sent the transaction.
      payerEoaAddress: accountOf(local.chain, 2).address,
      network: 'base',
      paymentCurrency: 'USDC-base',
      isCryptoToFiat: false,
    });
    expect(confirmed?.excessAmount).toBeUndefined();
    // Every field of the reference's payment payload (api-facts §1.6), with its type.
    expect(typesOf(confirmed ?? {})).toEqual(PAYMENT_PAYLOAD_TYPES);
    expect(confirmed).toMatchObject({
      paymentReference: expect.stringMatching(/^0x[0-9a-f]{16}$/),
      explorer: `https://basescan.org/tx/${paymentTx}`,
      payee: accountOf(local.chain, 1).address,
      currency: 'USDC',
      subStatus: '',
      paymentProcessor: 'request-network',
      fees: [],
      // The request was made with a client ID, server-side: the base event names it too.
      clientId: tenant.backendClientId,
      origin: null,
      // Recorded by our clock, not the block's.
      timestamp: t.clock.now().toISOString(),
    });
    for (const delivery of received) {
      expect(delivery.headers['x-request-network-delivery']).toBe(
        delivery.headers['x-service-delivery'],
      );
      expect(delivery.headers['x-request-network-signature']).toBe(
        delivery.headers['x-service-signature'],
      );
      expect(delivery.headers['x-request-network-retry-count']).toBe('0');
      expect(delivery.headers['x-request-network-test']).toBeUndefined();
    }
    expect(
      received.find((r) => r.body.event === 'payment.confirmed.client_id')?.body.clientId,
    ).toBe(tenant.backendClientId);
    expect(
      received.find((r) => r.body.event === 'payment.confirmed.checkout')?.body.securePaymentToken,
    ).toBe(token);

    const link = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}`,
      headers: clientHeaders(),
    });
    expect(link.statusCode).toBe(409);
    // The reference's 409 body names the transaction that paid each request; ours adds what
    // the payer's receipt shows, paid at the block's time.
    if (!paymentTx) throw new Error('no payment sent');
    const mined = await local.chain.client.getTransactionReceipt({ hash: paymentTx });
    const block = await local.chain.client.getBlock({ blockHash: mined.blockHash });
    const paidAt = new Date(Number(block.timestamp) * 1000).toISOString();
    expect(link.json()).toMatchObject({
      status: 'completed',
      branding: null,
      paidAt,
      requestStatuses: [
        {
          requestId,
          hasBeenPaid: true,
          txHash: paymentTx,
          payee: accountOf(local.chain, 1).address,
          amount: '12.5',
          currency: 'USDC-base',
          paidAt,
        },
      ],
    });
    const request = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestId}`,
      headers: clientHeaders(),
    });
    const payer = accountOf(local.chain, 2).address;
    expect(request.json()).toMatchObject({
      status: 'paid',
      hasBeenPaid: true,
      isListening: false,
      totalAmountPaid: '12.5',
      txHash: paymentTx,
      payerAddress: payer,
      payerEoaAddress: payer,
      payments: [
        {
          amount: '12.5',
          sourceTxHash: paymentTx,
          // Same-chain: nothing arrives on another network.
          destinationTxHash: null,
          sourceNetwork: 'base',
          type: 'direct',
          receivedAmount: '12.5',
          receivedCurrency: 'USDC',
          receivedNetwork: 'base',
          excessAmount: null,
          detectionSource: 'request-network',
          note: null,
          payerAddress: payer,
          request: { requestId, hasBeenPaid: true },
        },
      ],
    });
    const lookup = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments?requestId=${requestId}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(lookup.json()).toMatchObject({
      token,
      status: 'completed',
      completedAt: t.clock.now().toISOString(),
      payerAddress: payer,
      identityMode: 'client_id',
      clientId: tenant.backendClientId,
      blockReason: 'not_outgoing',
    });

    await indexer.tick();
    expect(await dispatcher.runOnce()).toBe(0); // nothing new: each event once
  });

  it('tells the platform-wide endpoints of every payment, a client ID’s only of its own', async () => {
    const browser = { 'x-client-id': tenant.browserClientId, origin: SHOP_ORIGIN };
    const platform = await startReceiver();
    const browserHook = await startReceiver();
    const registrations: { id: string; headers: Record<string, string> }[] = [];
    try {
      for (const [headers, target] of [
        [{ 'x-api-key': tenant.apiKey }, platform],
        [browser, browserHook],
      ] as const) {
        const registered = await t.app.inject({
          method: 'POST',
          url: '/v1/webhook',
          headers,
          payload: { url: target.url },
        });
        expect(registered.statusCode, registered.body).toBe(201);
        target.verifyWith(registered.json().secret);
        registrations.push({ id: registered.json().id, headers });
      }
      const payWith = async (headers: Record<string, string>) => {
        const target = resolveTarget(t.chains, {
          walletAddress: accountOf(local.chain, 1).address,
          chainId: 8453,
          tokenAddress: local.chain.addresses.usdc,
        });
        const { destinationId } = await activateDestination(
          t.db,
          t.clock,
          tenant.accountId,
          target,
        );
        const created = await t.app.inject({
          method: 'POST',
          url: '/v2/secure-payments',
          headers,
          payload: { requests: [{ destinationId, amount: '0.5' }] },
        });
        expect(created.statusCode, created.body).toBe(201);
        const calldata = await t.app.inject({
          method: 'GET',
          url: `/v2/secure-payments/${created.json().token}/pay?wallet=${accountOf(local.chain, 2).address}`,
          headers,
        });
        await sendAll(local.chain, accountOf(local.chain, 2), calldata.json().transactions);
        await mine(CONFIRMATIONS);
        expect((await indexer.tick()).recorded).toBe(1);
        await dispatcher.runOnce();
        return created.json().requestIds[0] as string;
      };
      const events = (r: Receiver, requestId: string) =>
        r.received
          .filter((d) => d.body.requestId === requestId)
          .map((d) => d.body.event)
          .sort();

      // Made with the API key: the platform-wide endpoint only, never a client ID's.
      const byKey = await payWith({ 'x-api-key': tenant.apiKey });
      await platform.waitFor(2);
      expect(events(platform, byKey)).toEqual(['payment.confirmed', 'payment.confirmed.checkout']);
      expect(events(browserHook, byKey)).toEqual([]);
      expect(events(receiver, byKey)).toEqual([]);

      // Made with the browser client ID: the platform-wide endpoint and that client ID's.
      const byBrowser = await payWith(browser);
      await browserHook.waitFor(3);
      const all = [
        'payment.confirmed',
        'payment.confirmed.checkout',
        'payment.confirmed.client_id',
      ];
      expect(events(browserHook, byBrowser)).toEqual(all);
      await platform.waitFor(5);
      expect(events(platform, byBrowser)).toEqual(all);
      expect(events(receiver, byBrowser)).toEqual([]);
      expect([...platform.refused, ...browserHook.refused]).toEqual([]);
    } finally {
      // Later tests' payments must not queue deliveries to these closed receivers.
      for (const { id, headers } of registrations) {
        await t.app.inject({ method: 'DELETE', url: `/v1/webhook/${id}`, headers });
      }
      await platform.close();
      await browserHook.close();
    }
  });

  it('names the browser origin a link was made from, on the event and its .client_id twin', async () => {
    const browser = { 'x-client-id': tenant.browserClientId, origin: SHOP_ORIGIN };
    const own = await startReceiver();
    try {
      const registered = await t.app.inject({
        method: 'POST',
        url: '/v1/webhook',
        headers: browser,
        payload: { url: own.url },
      });
      expect(registered.statusCode, registered.body).toBe(201);
      own.verifyWith(registered.json().secret);
      const target = resolveTarget(t.chains, {
        walletAddress: accountOf(local.chain, 1).address,
        chainId: 8453,
        tokenAddress: local.chain.addresses.usdc,
      });
      const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
      const created = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments',
        headers: browser,
        payload: { requests: [{ destinationId, amount: '1.5' }] },
      });
      expect(created.statusCode, created.body).toBe(201);
      const calldata = await t.app.inject({
        method: 'GET',
        url: `/v2/secure-payments/${created.json().token}/pay?wallet=${accountOf(local.chain, 2).address}`,
        headers: browser,
      });
      await sendAll(local.chain, accountOf(local.chain, 2), calldata.json().transactions);
      await mine(CONFIRMATIONS);
      expect((await indexer.tick()).recorded).toBe(1);
      await dispatcher.runOnce();
      const received = await own.waitFor(3);
      for (const event of ['payment.confirmed', 'payment.confirmed.client_id']) {
        expect(received.find((r) => r.body.event === event)?.body, event).toMatchObject({
          clientId: tenant.browserClientId,
          origin: SHOP_ORIGIN,
        });
      }
      expect(own.refused).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('sends payment.partial, then payment.confirmed with the running total', async () => {
    const { requestId } = await linkFor('10');
    const payer = accountOf(local.chain, 2);
    const feeAddress = accountOf(local.chain, 3).address;
    for (const [query, expected] of [
      [
        // The first installment carries a 1 % platform fee: the event lists it.
        `amount=4&feePercentage=1&feeAddress=${feeAddress}`,
        {
          event: 'payment.partial',
          amount: '4',
          totalAmountPaid: '4',
          fees: [{ type: 'platform', amount: '0.04', currency: 'USDC-base' }],
        },
      ],
      ['amount=6', { event: 'payment.confirmed', amount: '6', totalAmountPaid: '10', fees: [] }],
    ] as const) {
      receiver.received.length = 0;
      const pay = await t.app.inject({
        method: 'GET',
        url: `/v2/request/${requestId}/pay?wallet=${payer.address}&${query}`,
        headers: clientHeaders(),
      });
      await sendAll(
        local.chain,
        payer,
        pay.json().transactions.map((tx: { to: string; data: Hex; value: { hex: Hex } }) => ({
          ...tx,
          value: tx.value.hex,
          chainId: 8453,
        })),
      );
      await mine(CONFIRMATIONS);
      await indexer.tick();
      await dispatcher.runOnce();
      const [first] = (await receiver.waitFor(3)).filter((r) => r.body.event === expected.event);
      expect(first?.body).toMatchObject(expected);
    }
  });

  it('reports an overpayment to the base unit', async () => {
    const { requestId } = await linkFor('5');
    const status = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestId}`,
      headers: clientHeaders(),
    });
    const reference = status.json().paymentReference as Hex;
    const payer = accountOf(local.chain, 2);
    const usdc = getAddress(local.chain.addresses.usdc);
    const proxy = getAddress(local.chain.addresses.erc20FeeProxy);
    await sendAll(local.chain, payer, [
      {
        to: usdc,
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: 'approve',
          args: [proxy, 7_000_001n],
        }),
        value: '0x0',
        chainId: 8453,
      },
      {
        to: proxy,
        data: encodeFunctionData({
          abi: erc20FeeProxyAbi,
          functionName: 'transferFromWithReferenceAndFee',
          args: [
            usdc,
            accountOf(local.chain, 1).address,
            7_000_001n,
            reference,
            0n,
            '0x0000000000000000000000000000000000000000',
          ],
        }),
        value: '0x0',
        chainId: 8453,
      },
    ]);
    await mine(CONFIRMATIONS);
    await indexer.tick();
    await dispatcher.runOnce();
    const confirmed = (await receiver.waitFor(3)).find(
      (r) => r.body.event === 'payment.confirmed',
    )?.body;
    expect(confirmed).toMatchObject({
      totalAmountPaid: '7.000001',
      expectedAmount: '5',
      excessAmount: '2.000001',
    });
  });

  it('records nothing for a payment dropped by a reorganisation before the confirmation depth', async () => {
    const { token, requestId } = await linkFor('3');
    const beforePayment = await local.chain.snapshot();
    await payLink(token);
    await mine(CONFIRMATIONS - 1);
    expect((await indexer.tick()).recorded).toBe(0);
    await local.chain.revert(beforePayment); // the payment's blocks are gone
    await mine(CONFIRMATIONS + 3); // other blocks take their place
    expect((await indexer.tick()).recorded).toBe(0);
    expect(await dispatcher.runOnce()).toBe(0);
    const status = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestId}`,
      headers: clientHeaders(),
    });
    expect(status.json()).toMatchObject({ status: 'pending', totalAmountPaid: '0' });

    await payLink(token);
    await mine(CONFIRMATIONS);
    expect((await indexer.tick()).recorded).toBe(1);
    await dispatcher.runOnce();
    expect(
      (await receiver.waitFor(3)).filter((r) => r.body.event === 'payment.confirmed'),
    ).toHaveLength(1);
  });

  it('retries a failing receiver with the same delivery id and a rising retry count', async () => {
    receiver.respondWith(500, 503);
    const sent = await t.app.inject({
      method: 'POST',
      url: '/v1/webhook/test',
      headers: clientHeaders(),
      payload: { eventType: 'payment.confirmed' },
    });
    expect(sent.json().sent).toBe(1);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await dispatcher.runOnce()).toBe(0); // not due yet
    // The reference's schedule: 1 s after the first failure, 5 s after the second.
    t.clock.advance(1_000);
    expect(await dispatcher.runOnce()).toBe(1);
    t.clock.advance(4_999);
    expect(await dispatcher.runOnce()).toBe(0);
    t.clock.advance(1);
    expect(await dispatcher.runOnce()).toBe(1);
    const attempts = await receiver.waitFor(3);
    expect(new Set(attempts.map((a) => a.headers['x-service-delivery'])).size).toBe(1);
    expect(attempts.map((a) => a.headers['x-service-retry-count'])).toEqual(['0', '1', '2']);
    expect(
      attempts.every(
        (a) => a.headers['x-service-test'] === 'true' && a.rawBody === attempts[0]?.rawBody,
      ),
    ).toBe(true);
    const log = await t.app.inject({
      method: 'GET',
      url: `/v1/webhook/${(await t.app.inject({ method: 'GET', url: '/v1/webhook', headers: clientHeaders() })).json()[0].id}/deliveries`,
      headers: clientHeaders(),
    });
    const delivery = log
      .json()
      .deliveries.find((d: { id: string }) => d.id === sent.json().deliveryIds[0]);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200 });
    expect(delivery.attemptLog.map((a: { statusCode: number }) => a.statusCode)).toEqual([
      500, 503, 200,
    ]);
  });
});
