import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { payments, requests, webhookDeliveries } from '../db/schema.ts';
import { matchRequests, recordPayments } from '../detection/record.ts';
import type { DetectedPayment } from '../detection/types.ts';
import { insertRequests } from '../requests/requests.ts';
import { createSettlement } from './settlement.ts';

/**
 * Payments found together (a range of a backlog) are settled together: each request counts
 * its payments in the order found, and each payment's event reports the request as that
 * payment left it, exactly as one payment at a time would have.
 */

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await createTestApp({ env: { ALLOW_LOCAL_WEBHOOKS: 'true' } });
  tenant = await createTenant(t.db);
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': tenant.apiKey },
    // Never sent in this test: the deliveries are read from the outbox.
    payload: { url: 'http://127.0.0.1:9/hook' },
  });
  expect(res.statusCode, res.body).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

/** A request of `expected` USDC base units on base. */
async function request(expected: bigint) {
  const network = t.chains.network('base');
  const usdc = t.chains.currency('USDC-base');
  if (!network || !usdc) throw new Error('base');
  const [row] = await insertRequests(t.db, [
    {
      accountId: tenant.accountId,
      clientIdId: null,
      network,
      invoiceCurrency: usdc,
      paymentCurrency: usdc,
      expectedAmount: expected,
      payee: PAYEE,
    },
  ]);
  if (!row?.referenceTopic) throw new Error('no row');
  return { id: row.id, topic: row.referenceTopic, token: usdc.address };
}

let logIndex = 0;
const TX = `0x${'ab'.repeat(32)}`;

function payment(
  paid: { readonly topic: string; readonly token: string },
  amount: bigint,
): DetectedPayment {
  logIndex += 1;
  return {
    network: 'base',
    txHash: TX,
    logIndex,
    blockNumber: 7n,
    blockHash: `0x${'cd'.repeat(32)}`,
    timestamp: new Date(0),
    referenceTopic: paid.topic,
    tokenAddress: paid.token,
    payee: PAYEE,
    amount,
    feeAmount: 0n,
    feeAddress: null,
    payerAddress: PAYEE,
    payerEoaAddress: PAYEE,
  };
}

describe('settling the payments of one range together', () => {
  it("counts each request's payments in order, each event telling the request as it left it", async () => {
    const split = await request(10n);
    const whole = await request(5n);
    const found = [payment(split, 4n), payment(whole, 5n), payment(split, 4n), payment(split, 4n)];
    const matched = await matchRequests(t.db, t.chains, 'base', found);
    expect(matched).toHaveLength(4);
    const recorded = await recordPayments(
      t.db,
      { sink: createSettlement({ chains: t.chains }), now: t.clock.now() },
      matched,
      { network: 'base', lastBlock: 7n, blocks: [] },
    );
    expect(recorded).toBe(4);

    const rows = await t.db
      .select()
      .from(requests)
      .where(inArray(requests.id, [split.id, whole.id]));
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(split.id)).toMatchObject({ totalAmountPaid: 12n, status: 'paid' });
    expect(byId.get(split.id)?.paidAt).toEqual(t.clock.now());
    expect(byId.get(whole.id)).toMatchObject({ totalAmountPaid: 5n, status: 'paid' });

    // In the order the payments were found.
    const deliveries = await t.db
      .select({ body: webhookDeliveries.body, paymentId: webhookDeliveries.paymentId })
      .from(webhookDeliveries)
      .innerJoin(payments, eq(payments.id, webhookDeliveries.paymentId))
      .orderBy(payments.logIndex);
    const events = deliveries.map((row) => JSON.parse(row.body) as Record<string, unknown>);
    expect(
      events.map(({ event, amount, totalAmountPaid, excessAmount }) => ({
        event,
        amount,
        totalAmountPaid,
        excessAmount,
      })),
    ).toEqual([
      { event: 'payment.partial', amount: '0.000004', totalAmountPaid: '0.000004' },
      { event: 'payment.confirmed', amount: '0.000005', totalAmountPaid: '0.000005' },
      { event: 'payment.partial', amount: '0.000004', totalAmountPaid: '0.000008' },
      {
        event: 'payment.confirmed',
        amount: '0.000004',
        totalAmountPaid: '0.000012',
        excessAmount: '0.000002',
      },
    ]);
    // One delivery a payment, each naming its own.
    expect(new Set(deliveries.map((row) => row.paymentId)).size).toBe(4);
  });
});
