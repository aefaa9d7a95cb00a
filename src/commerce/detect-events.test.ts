import { asc, eq } from 'drizzle-orm';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { type LogPosition, wrapperLog } from '../../test/commerce-logs.ts';
import { insertCommercePayment } from '../../test/commerce-world.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { commerceEvents, commercePayments, webhookDeliveries } from '../db/schema.ts';
import type { ContractLog } from '../detection/types.ts';
import { REORGED } from '../requests/payment-events.ts';
import { createCommerceWatcher } from './detect-events.ts';
import type { WrapperOperators } from './wrapper-operator.ts';

/**
 * The wrapper's logs recorded as commerce events of the payment of their reference, each with
 * its webhook, once; and taken back, with a `reverted` webhook to whoever may have heard, when
 * a reorganisation drops their block.
 */

const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const MERCHANT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const OTHER_MERCHANT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const OPERATOR = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65';
const HASH: Hex = `0x${'ab'.repeat(32)}`;
const BLOCK_HASH: Hex = `0x${'ef'.repeat(32)}`;

let t: TestApp;
let tenant: Tenant;
let wrapper: string;
let usdc: string;
let webhookId: string;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db);
  wrapper = t.chains.contracts('base').commerceEscrowWrapper ?? '';
  usdc = t.chains.currency('USDC-base')?.address ?? '';
  const hook = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { url: 'https://hooks.example.com/payreq' },
  });
  expect(hook.statusCode, hook.body).toBe(201);
  webhookId = hook.json().id;
});
afterAll(() => t?.close());

/** A commerce payment of 50 USDC to MERCHANT, with its request (payee the merchant). */
const commercePayment = () =>
  insertCommercePayment(t, {
    accountId: tenant.accountId,
    merchant: MERCHANT,
    operator: OPERATOR,
    amount: 50_000_000n,
  });

const at = (
  reference: Hex,
  txByte: string,
  logIndex: number,
  blockNumber: bigint,
): LogPosition => ({
  wrapper,
  reference,
  txHash: `0x${txByte.repeat(32)}`,
  logIndex,
  blockNumber,
  blockHash: BLOCK_HASH,
});

/**
 * The wrapper's stored operator of every reference: these logs are written, not mined, so no
 * wrapper holds them (the e2e tests ask the sandbox's).
 */
const operators: WrapperOperators = { of: async () => OPERATOR, forget: () => undefined };

function record(logs: readonly ContractLog[]) {
  const watcher = createCommerceWatcher({ chains: t.chains, network: 'base', wrapper, operators });
  return t.db.transaction((tx) => watcher.recorded(tx, logs, t.clock.now()));
}

function drop(fork: bigint) {
  const watcher = createCommerceWatcher({ chains: t.chains, network: 'base', wrapper, operators });
  return t.db.transaction((tx) => watcher.dropped(tx, fork, t.clock.now()));
}

/** The deliveries about one request (their ids share the fixed clock's millisecond: unordered). */
const outbox = (requestId: string) =>
  t.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(asc(webhookDeliveries.id))
    .then((rows) => rows.filter((row) => JSON.parse(row.body).requestId === requestId));

describe('the commerce watcher', () => {
  it('records one authorization and a capture, once, with their webhooks and totals', async () => {
    const { row, reference } = await commercePayment();
    const logs = [
      wrapperLog(
        'PaymentAuthorized',
        [PAYER, MERCHANT, usdc, 50_000_000n, HASH],
        at(reference, '01', 0, 10n),
      ),
      wrapperLog(
        'CommercePaymentAuthorized',
        [PAYER, MERCHANT, 50_000_000n],
        at(reference, '01', 1, 10n),
      ),
      // Someone else's authorization under our reference, and a reference we never made.
      wrapperLog(
        'PaymentAuthorized',
        [PAYER, OTHER_MERCHANT, usdc, 1n, HASH],
        at(reference, '02', 0, 11n),
      ),
      wrapperLog('PaymentCaptured', [HASH, 1n, MERCHANT], at('0x00000000000000aa', '03', 0, 11n)),
      wrapperLog('PaymentCaptured', [HASH, 30_000_000n, MERCHANT], at(reference, '04', 2, 12n)),
    ];
    expect(await record(logs)).toBe(2);
    expect(await record(logs)).toBe(0);
    const events = await t.db
      .select()
      .from(commerceEvents)
      .where(eq(commerceEvents.commercePaymentId, row.id))
      .orderBy(asc(commerceEvents.blockNumber));
    expect(events.map((e) => [e.type, e.amount, e.blockNumber, e.logIndex])).toEqual([
      ['authorized', 50_000_000n, 10n, 0],
      ['captured', 30_000_000n, 12n, 2],
    ]);
    const [learnt] = await t.db
      .select()
      .from(commercePayments)
      .where(eq(commercePayments.id, row.id));
    expect(learnt).toMatchObject({ payer: PAYER, commercePaymentHash: HASH });
    const bodies = (await outbox(row.requestId))
      .map((d) => JSON.parse(d.body))
      .sort((a, b) => Number(a.blockNumber) - Number(b.blockNumber));
    expect(bodies).toEqual([
      {
        event: 'commerce_payment.authorized',
        requestId: row.requestId,
        requestID: row.requestId,
        paymentReference: reference,
        network: 'base',
        currency: 'USDC',
        paymentCurrency: 'USDC-base',
        amount: '50',
        authorizedAmount: '50',
        capturedAmount: '0',
        refundedAmount: '0',
        merchant: MERCHANT,
        payer: PAYER,
        commercePaymentHash: HASH,
        txHash: `0x${'01'.repeat(32)}`,
        blockNumber: '10',
        logIndex: 0,
        blockTimestamp: '2026-11-29T12:00:00.000Z',
        explorer: `https://basescan.org/tx/0x${'01'.repeat(32)}`,
        reverted: false,
        timestamp: t.clock.now().toISOString(),
      },
      expect.objectContaining({
        event: 'commerce_payment.captured',
        amount: '30',
        authorizedAmount: '50',
        capturedAmount: '30',
        refundedAmount: '0',
        blockNumber: '12',
        logIndex: 2,
        reverted: false,
      }),
    ]);
  });

  it('gives each webhook the totals as of its own event, when an earlier one is recorded later', async () => {
    const { row, reference } = await commercePayment();
    const authorization = wrapperLog(
      'PaymentAuthorized',
      [PAYER, MERCHANT, usdc, 50_000_000n, HASH],
      at(reference, '21', 3, 5n),
    );
    await record([
      authorization,
      wrapperLog('PaymentCaptured', [HASH, 30_000_000n, MERCHANT], at(reference, '22', 1, 6n)),
      wrapperLog('PaymentRefunded', [HASH, 10_000_000n, PAYER], at(reference, '22', 4, 6n)),
    ]);
    // A second capture earlier in the refund's block, found after it (a later scan).
    await record([
      wrapperLog('PaymentCaptured', [HASH, 5_000_000n, MERCHANT], at(reference, '23', 0, 6n)),
    ]);
    const bodies = (await outbox(row.requestId)).map((d) => JSON.parse(d.body));
    const summary = bodies
      .map((b) => [
        b.event,
        b.blockNumber,
        b.logIndex,
        b.authorizedAmount,
        b.capturedAmount,
        b.refundedAmount,
      ])
      .sort((a, b) => Number(a[1]) - Number(b[1]) || Number(a[2]) - Number(b[2]));
    expect(summary).toEqual([
      ['commerce_payment.authorized', '5', 3, '50', '0', '0'],
      ['commerce_payment.captured', '6', 0, '50', '5', '0'],
      ['commerce_payment.captured', '6', 1, '50', '30', '0'],
      ['commerce_payment.refunded', '6', 4, '50', '30', '10'],
    ]);
  });

  it('takes back a dropped event: unsent, cancelled; heard, reverted', async () => {
    const { row, reference } = await commercePayment();
    await record([
      wrapperLog(
        'PaymentAuthorized',
        [PAYER, MERCHANT, usdc, 50_000_000n, HASH],
        at(reference, '11', 0, 20n),
      ),
      wrapperLog('PaymentCaptured', [HASH, 20_000_000n, MERCHANT], at(reference, '12', 0, 21n)),
      wrapperLog('PaymentRefunded', [HASH, 5_000_000n, PAYER], at(reference, '13', 0, 22n)),
    ]);
    const written = await outbox(row.requestId);
    const [authorized, captured, refunded] = ['authorized', 'captured', 'refunded'].map((type) =>
      written.find((d) => d.event === `commerce_payment.${type}`),
    );
    if (!authorized || !captured || !refunded) throw new Error('three deliveries');
    // The capture's delivery was made; the refund's never attempted.
    await t.db
      .update(webhookDeliveries)
      .set({ status: 'delivered', attempts: 1, deliveredAt: t.clock.now() })
      .where(eq(webhookDeliveries.id, captured.id));

    expect(await drop(20n)).toBe(2);
    const after = await outbox(row.requestId);
    expect(after.find((d) => d.id === refunded.id)).toMatchObject({
      status: 'failed',
      lastError: REORGED,
      attempts: 0,
    });
    expect(after.find((d) => d.id === authorized.id)?.status).toBe('pending');
    const reverted = after.filter((d) => JSON.parse(d.body).reverted === true);
    expect(reverted.map((d) => JSON.parse(d.body))).toEqual([
      expect.objectContaining({
        event: 'commerce_payment.captured',
        amount: '20',
        authorizedAmount: '50',
        capturedAmount: '0',
        refundedAmount: '0',
        txHash: `0x${'12'.repeat(32)}`,
        reverted: true,
      }),
    ]);
    const left = await t.db
      .select({ type: commerceEvents.type })
      .from(commerceEvents)
      .where(eq(commerceEvents.commercePaymentId, row.id));
    expect(left).toEqual([{ type: 'authorized' }]);
  });
});
