import { asc, eq } from 'drizzle-orm';
import { type Account, type Hex, parseUnits, zeroAddress } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { commerceActions, commerceEvents, payments } from '../../src/db/schema.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, standIn } from '../chain.ts';
import { approve, authParams, chainNow, wrapperAbi, write } from '../commerce-contracts.ts';
import { insertCommercePayment } from '../commerce-world.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * Commerce payments detected from the chain: the sandbox's wrapper driven from wallets as a
 * buyer and an operator would, the real indexer reading its events with the payments', and a
 * real receiver checking every delivery's signature. The merchant's legs send the payment
 * events, the legs back to the buyer none, and a reorganisation takes a capture back.
 */

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let indexer: Indexer;
let dispatcher: Dispatcher;
let payer: Account;
let merchant: Account;
let operator: Account;
let feeReceiver: Account;

beforeAll(async () => {
  local = await standIn('base');
  t = await createTestApp({
    env: { ...local.env, CONFIRMATIONS_BASE: '0' },
    transports: local.transports,
  });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  indexer = testIndexer(t, { confirmations: 0 });
  dispatcher = testDispatcher(t);
  payer = accountOf(local.chain, 1);
  merchant = accountOf(local.chain, 2);
  operator = accountOf(local.chain, 3);
  feeReceiver = accountOf(local.chain, 4);
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { url: receiver.url },
  });
  expect(registered.statusCode, registered.body).toBe(201);
  receiver.verifyWith(registered.json().secret);
  await indexer.tick();
});
afterAll(async () => {
  await receiver.close();
  await t?.close();
  await local?.chain.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});
afterEach(() => {
  expect(receiver.refused).toEqual([]);
});

const usdc = (value: string) => parseUnits(value, 6);
const wrapper = () => local.chain.addresses.commerceEscrowWrapper;

/** A commerce payment of `amount` USDC, in the database as the operations make it. */
const newPayment = (amount: string) =>
  insertCommercePayment(t, {
    accountId: tenant.accountId,
    merchant: merchant.address,
    payer: payer.address,
    operator: operator.address,
    amount: usdc(amount),
  });

async function authorize(
  reference: Hex,
  amount: string,
  authorization = 86_400n,
  by: Account = operator,
) {
  const params = authParams(local.chain, {
    paymentReference: reference,
    payer: payer.address,
    merchant: merchant.address,
    operator: by.address,
    token: local.chain.addresses.usdc,
    amount: usdc(amount),
    now: await chainNow(local.chain),
    // The pre-approval may not outlive the authorization.
    preApproval: authorization < 3_600n ? authorization : 3_600n,
    authorization,
  });
  await approve(local.chain, payer, local.chain.addresses.usdc, wrapper(), params.amount);
  const receipt = await write(local.chain, payer, {
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'authorizePayment',
    args: [params],
  });
  return receipt.transactionHash;
}

async function capture(reference: Hex, amount: string, feeBps = 0, by: Account = operator) {
  const receipt = await write(local.chain, by, {
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'capturePayment',
    args: [reference, usdc(amount), feeBps, feeBps > 0 ? feeReceiver.address : zeroAddress],
  });
  return receipt.transactionHash;
}

async function refund(reference: Hex, amount: string) {
  await approve(local.chain, operator, local.chain.addresses.usdc, wrapper(), usdc(amount));
  const receipt = await write(local.chain, operator, {
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'refundPayment',
    args: [reference, usdc(amount), local.chain.addresses.operatorRefundCollector, '0x'],
  });
  return receipt.transactionHash;
}

async function voidPayment(reference: Hex) {
  const receipt = await write(local.chain, operator, {
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'voidPayment',
    args: [reference],
  });
  return receipt.transactionHash;
}

async function reclaim(reference: Hex) {
  const receipt = await write(local.chain, payer, {
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'reclaimPayment',
    args: [reference],
  });
  return receipt.transactionHash;
}

/** Indexes what the chain holds and delivers its webhooks: the bodies received, by event. */
async function settle(expected: number) {
  await indexer.tick();
  await dispatcher.runOnce();
  const received = await receiver.waitFor(expected);
  expect(received).toHaveLength(expected);
  return received.map((r) => r.body);
}

async function commerceStatus(requestId: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/commerce-payments/${requestId}/status`,
    headers: { 'x-api-key': tenant.apiKey },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const eventsOf = (commercePaymentId: string) =>
  t.db
    .select()
    .from(commerceEvents)
    .where(eq(commerceEvents.commercePaymentId, commercePaymentId))
    .orderBy(asc(commerceEvents.blockNumber), asc(commerceEvents.logIndex));

describe('commerce payments detected on chain', () => {
  it('authorize 50, capture 30 with a 1 % fee, capture 20, refund 10: events, webhooks, payments', async () => {
    const { row, request, reference } = await newPayment('50');
    const authorized = await authorize(reference, '50');
    const [auth] = await settle(1);
    expect(auth).toMatchObject({
      event: 'commerce_payment.authorized',
      requestId: row.requestId,
      paymentReference: reference,
      network: 'base',
      amount: '50',
      authorizedAmount: '50',
      capturedAmount: '0',
      refundedAmount: '0',
      txHash: authorized,
      explorer: `https://basescan.org/tx/${authorized}`,
      reverted: false,
    });
    // Its place on the chain, by which a receiver orders the payment's events.
    const [authEvent] = await eventsOf(row.id);
    expect([auth?.blockNumber, auth?.logIndex]).toEqual([
      String(authEvent?.blockNumber),
      authEvent?.logIndex,
    ]);
    expect(auth?.logIndex).toEqual(expect.any(Number));

    receiver.received.length = 0;
    const first = await capture(reference, '30', 100);
    const afterFirst = await settle(2);
    expect(afterFirst.find((b) => b.event === 'commerce_payment.captured')).toMatchObject({
      amount: '30',
      authorizedAmount: '50',
      capturedAmount: '30',
      txHash: first,
    });
    expect(afterFirst.find((b) => b.event === 'payment.partial')).toMatchObject({
      requestId: row.requestId,
      txHash: first,
      amount: '30',
      payee: merchant.address,
      // The buyer whose funds were held, not the operator that sent the capture.
      payerAddress: payer.address,
      payerEoaAddress: payer.address,
    });

    receiver.received.length = 0;
    const second = await capture(reference, '20');
    const afterSecond = await settle(2);
    expect(afterSecond.find((b) => b.event === 'commerce_payment.captured')).toMatchObject({
      amount: '20',
      capturedAmount: '50',
      txHash: second,
    });
    expect(afterSecond.find((b) => b.event === 'payment.confirmed')).toMatchObject({
      txHash: second,
      totalAmountPaid: '50',
    });

    receiver.received.length = 0;
    const refunded = await refund(reference, '10');
    // The refund's leg to the buyer pays no request: its own webhook only.
    expect(await settle(1)).toEqual([
      expect.objectContaining({
        event: 'commerce_payment.refunded',
        amount: '10',
        capturedAmount: '50',
        refundedAmount: '10',
        txHash: refunded,
      }),
    ]);

    expect((await eventsOf(row.id)).map((e) => [e.type, e.amount, e.txHash])).toEqual([
      ['authorized', usdc('50'), authorized],
      ['captured', usdc('30'), first],
      ['captured', usdc('20'), second],
      ['refunded', usdc('10'), refunded],
    ]);
    const paid = await t.db.select().from(payments).where(eq(payments.requestRowId, request.id));
    expect(paid.map((p) => p.txHash).sort()).toEqual([first, second].sort());
    // Each event was sent once: nothing is left to send.
    expect(await dispatcher.runOnce()).toBe(0);
  });

  it('a void and a reclaim send their webhooks and no payment event', async () => {
    const voidable = await newPayment('40');
    await authorize(voidable.reference, '40');
    const voided = await voidPayment(voidable.reference);
    const reclaimable = await newPayment('15');
    await authorize(reclaimable.reference, '15', 100n);
    await local.chain.provider.request({ method: 'evm_increaseTime', params: [200] });
    await local.chain.provider.request({ method: 'evm_mine', params: [] });
    const reclaimed = await reclaim(reclaimable.reference);

    const bodies = await settle(4);
    expect(bodies.map((b) => `${b.event} ${b.amount}`).sort()).toEqual([
      'commerce_payment.authorized 15',
      'commerce_payment.authorized 40',
      'commerce_payment.reclaimed 15',
      'commerce_payment.voided 40',
    ]);
    expect(bodies.find((b) => b.event === 'commerce_payment.voided')?.txHash).toBe(voided);
    expect(bodies.find((b) => b.event === 'commerce_payment.reclaimed')?.txHash).toBe(reclaimed);
    for (const { request } of [voidable, reclaimable]) {
      expect(
        await t.db.select().from(payments).where(eq(payments.requestRowId, request.id)),
      ).toEqual([]);
    }
  });

  it('a reorganisation that drops a capture takes it back with `reverted: true`', async () => {
    const { row, reference } = await newPayment('25');
    const authorized = await authorize(reference, '25');
    await settle(1);
    const forkPoint = await local.chain.snapshot();

    receiver.received.length = 0;
    const captured = await capture(reference, '25');
    const sent = await settle(2);
    expect(sent.map((b) => b.event).sort()).toEqual([
      'commerce_payment.captured',
      'payment.confirmed',
    ]);

    // The blocks holding the capture are replaced by longer, empty ones.
    receiver.received.length = 0;
    await local.chain.revert(forkPoint);
    for (let i = 0; i < 4; i++) await local.chain.provider.request({ method: 'evm_mine' });
    const [reverted] = await settle(1);
    expect(reverted).toMatchObject({
      event: 'commerce_payment.captured',
      requestId: row.requestId,
      amount: '25',
      authorizedAmount: '25',
      capturedAmount: '0',
      txHash: captured,
      reverted: true,
    });
    expect((await eventsOf(row.id)).map((e) => [e.type, e.txHash])).toEqual([
      ['authorized', authorized],
    ]);
    const status = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${row.requestId}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(status.json()).toMatchObject({ status: 'pending', totalAmountPaid: '0' });

    // Captured again on the new chain: announced again.
    receiver.received.length = 0;
    const again = await capture(reference, '25');
    const announced = await settle(2);
    expect(announced.find((b) => b.event === 'commerce_payment.captured')).toMatchObject({
      txHash: again,
      reverted: false,
      capturedAmount: '25',
    });
  });
  it('takes no authorization made for another operator: no event, PENDING, and its capture pays nothing', async () => {
    const { row, request, reference } = await newPayment('30');
    // Same merchant, token, amount and terms (the escrow's hash holds no wrapper operator), but
    // the wrapper stores another operator: ours could capture, void or refund none of it.
    await authorize(reference, '30', 86_400n, feeReceiver);
    const captured = await capture(reference, '30', 0, feeReceiver);
    await indexer.tick();
    expect(await eventsOf(row.id)).toEqual([]);
    expect(await t.db.select().from(payments).where(eq(payments.requestRowId, request.id))).toEqual(
      [],
    );
    expect(await dispatcher.runOnce()).toBe(0);
    const status = await commerceStatus(row.requestId);
    expect(status).toMatchObject({ status: 'PENDING', authorizedAmount: '0', events: [] });
    expect(JSON.stringify(status)).not.toContain(captured);
  });

  it('counts a confirmed capture a reorganisation took back no more: captured again, it counts once', async () => {
    const { row, reference } = await newPayment('25');
    await authorize(reference, '25');
    await settle(1);
    const forkPoint = await local.chain.snapshot();

    receiver.received.length = 0;
    const captured = await capture(reference, '25');
    // As the execute operation records it once its receipt succeeded.
    await t.db.insert(commerceActions).values({
      commercePaymentId: row.id,
      kind: 'capture',
      amount: usdc('25'),
      status: 'confirmed',
      txHash: captured,
      endedAt: t.clock.now(),
    });
    await settle(2);
    expect(await commerceStatus(row.requestId)).toMatchObject({ capturedAmount: '25' });

    receiver.received.length = 0;
    await local.chain.revert(forkPoint);
    for (let i = 0; i < 4; i++) await local.chain.provider.request({ method: 'evm_mine' });
    await settle(1);
    // Off the chain: neither its event nor its action counts.
    expect(await commerceStatus(row.requestId)).toMatchObject({
      status: 'AUTHORIZED',
      capturedAmount: '0',
      capturableAmount: '25',
    });

    receiver.received.length = 0;
    const again = await capture(reference, '25');
    await settle(2);
    const after = await commerceStatus(row.requestId);
    expect(after).toMatchObject({ status: 'PAID', capturedAmount: '25', capturableAmount: '0' });
    expect(after.events.map((e: { transactionHash: string }) => e.transactionHash)).not.toContain(
      captured,
    );
    expect(after.events.at(-1)?.transactionHash).toBe(again);
  });
});
