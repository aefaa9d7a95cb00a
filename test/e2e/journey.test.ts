import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createRealClock, createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * A journey read after a link is paid on a local chain running the Request contracts: payreq's
 * own hops (the request, the payer's intent, the payment the indexer found with its transaction,
 * the webhooks it sent) come in time order with a processor's step, in one call.
 */

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let indexer: Indexer;
let dispatcher: Dispatcher;

beforeAll(async () => {
  local = await standIn('base');
  // The real clock: payreq's hops are stamped by the database's clock and the app's alike.
  t = await createTestApp({
    env: { ...local.env, CONFIRMATIONS_BASE: '1' },
    transports: local.transports,
    clock: createRealClock(),
  });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  indexer = testIndexer(t, { confirmations: 1 });
  dispatcher = testDispatcher(t);
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-client-id': tenant.backendClientId },
    payload: { url: receiver.url },
  });
  expect(registered.statusCode, registered.body).toBe(201);
  receiver.verifyWith(registered.json().secret);
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
  await local?.chain.close();
});

const key = () => ({ 'x-api-key': tenant.apiKey });
const client = () => ({ 'x-client-id': tenant.backendClientId });

describe('a journey of a link paid on chain', () => {
  it('shows the payment detected with its transaction and the webhooks sent, in order', async () => {
    const payee = accountOf(local.chain, 1);
    const payer = accountOf(local.chain, 2);
    const destination = await activateDestination(
      t.db,
      t.clock,
      tenant.accountId,
      resolveTarget(t.chains, {
        walletAddress: payee.address,
        chainId: 8453,
        tokenAddress: local.chain.addresses.usdc,
      }),
    );
    const link = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: client(),
      payload: { requests: [{ destinationId: destination.destinationId, amount: '12.5' }] },
    });
    expect(link.statusCode, link.body).toBe(201);
    const { token } = link.json();
    const requestId: string = link.json().requestIds[0];
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/journey',
      headers: key(),
      payload: { requestId },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { journeyId } = created.json();

    const pay = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}/pay?wallet=${payer.address}`,
      headers: client(),
    });
    expect(pay.statusCode, pay.body).toBe(200);
    const hashes = await sendAll(local.chain, payer, pay.json().transactions);
    const paymentTx = hashes.at(-1);
    const intent = await t.app.inject({
      method: 'POST',
      url: `/v2/secure-payments/${token}/intent`,
      headers: client(),
      payload: { chain: 'BASE', token: 'USDC', txHash: paymentTx },
    });
    expect(intent.statusCode, intent.body).toBe(200);
    await local.chain.provider.request({ method: 'evm_mine' });
    expect((await indexer.tick()).recorded).toBe(1);
    await dispatcher.runOnce();
    await receiver.waitFor(3);
    // The off-ramp's step comes after: it paid the merchant's bank once the money arrived.
    const step = await t.app.inject({
      method: 'POST',
      url: `/v2/journey/${requestId}`,
      headers: key(),
      payload: {
        status: 'paid_out',
        amount: '12.40',
        currency: 'EUR',
        txReference: 'SEPA-1',
        processedAt: new Date(Date.now() + 60_000).toISOString(),
      },
    });
    expect(step.statusCode, step.body).toBe(201);
    expect(step.json().journeyId).toBe(journeyId);

    const read = await t.app.inject({
      method: 'GET',
      url: `/v2/journey/${journeyId}`,
      headers: key(),
    });
    expect(read.statusCode, read.body).toBe(200);
    const events: Record<string, unknown>[] = read.json().events;
    expect(events.map((event) => event.type ?? event.source)).toEqual([
      'request_created',
      'payment_intent',
      'payment_detected',
      'webhook_sent',
      'webhook_sent',
      'webhook_sent',
      'processor',
    ]);
    expect(events.map((event) => event.stepIndex)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const times = events.map((event) => Date.parse(String(event.processedAt)));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    expect(events[1]).toMatchObject({
      source: 'payreq',
      status: 'recorded',
      txReference: paymentTx,
      rawPayload: { kind: 'tx', network: 'base', txHash: paymentTx },
    });
    expect(events[2]).toMatchObject({
      source: 'payreq',
      status: 'detected',
      amount: '12.5',
      currency: 'USDC-base',
      txReference: paymentTx,
      rawPayload: {
        network: 'base',
        blockNumber: expect.stringMatching(/^\d+$/),
        payerAddress: payer.address,
        payee: payee.address,
      },
    });
    const webhooks = events.slice(3, 6);
    expect(webhooks.map((event) => (event.rawPayload as { event: string }).event).sort()).toEqual([
      'payment.confirmed',
      'payment.confirmed.checkout',
      'payment.confirmed.client_id',
    ]);
    for (const event of webhooks) {
      expect(event).toMatchObject({
        source: 'payreq',
        status: 'delivered',
        rawPayload: { attempts: 1, lastStatusCode: 200, deliveredAt: expect.any(String) },
      });
    }
    expect(events[6]).toMatchObject({
      source: 'processor',
      status: 'paid_out',
      amount: '12.40',
      currency: 'EUR',
    });
  });
});
