import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import {
  paymentDailyTotals,
  payments,
  requests,
  securePayments,
  webhookDeliveries,
  webhooks,
} from '../db/schema.ts';
import { searchColumnsOf } from '../payments/records.ts';

/**
 * `GET /v2/dashboard/summary` over rows as detection writes them: the totals the payments'
 * triggers keep (an insert adds, a reorganisation's delete takes away), payouts counted as paid
 * out, links awaiting payment, failing endpoints; nothing of another account's.
 */

const PAYEE = '0x4838B106FCe9647Bdf1E7877BF73cE8B0BAD5f97';
const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const DAY_MS = 24 * 60 * 60_000;

let t: TestApp;
let shop: Tenant;
let other: Tenant;
let logIndex = 0;

beforeAll(async () => {
  t = await createTestApp();
  shop = await createTenant(t.db, 'Shop');
  other = await createTenant(t.db, 'Other');
});
afterAll(() => t.close());

/** A request made through the API (`/v2/request`, or `/v2/payouts` for one paid out). */
async function request(tenant: Tenant, amount: string, payout = false) {
  const res = await t.app.inject({
    method: 'POST',
    url: payout ? '/v2/payouts' : '/v2/request',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { amount, invoiceCurrency: 'USDC-base', paymentCurrency: 'USDC-base', payee: PAYEE },
  });
  expect(res.statusCode, res.body).toBe(201);
  const [row] = await t.db
    .select()
    .from(requests)
    .where(eq(requests.requestId, res.json().requestId));
  if (!row) throw new Error('no request');
  return row;
}

/** A payment of `units` (USDC base units) on `row`, `daysAgo` days before the test clock. */
async function pay(row: Awaited<ReturnType<typeof request>>, units: bigint, daysAgo: number) {
  logIndex += 1;
  const [payment] = await t.db
    .insert(payments)
    .values({
      accountId: row.accountId,
      requestRowId: row.id,
      ...searchColumnsOf(row),
      network: 'base',
      txHash: `0x${logIndex.toString(16).padStart(64, '0')}`,
      logIndex,
      blockNumber: BigInt(logIndex),
      blockHash: `0x${'cd'.repeat(32)}`,
      amount: units,
      feeAmount: 0n,
      payee: PAYEE,
      payerAddress: PAYER,
      paymentReference: row.paymentReference,
      timestamp: new Date(t.clock.now().getTime() - daysAgo * DAY_MS),
    })
    .returning();
  if (!payment) throw new Error('no payment');
  return payment;
}

function summary(days: string, tenant = shop) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/dashboard/summary?days=${days}`,
    headers: { 'x-api-key': tenant.apiKey },
  });
}

describe('GET /v2/dashboard/summary', () => {
  it('totals received and paid out per currency and day, as payments come and go', async () => {
    const sold = await request(shop, '25');
    const paidOut = await request(shop, '4', true);
    await pay(sold, 10_000_000n, 0);
    const moved = await pay(sold, 15_000_000n, 2);
    const old = await pay(sold, 1_000_000n, 40);
    await pay(paidOut, 4_000_000n, 1);
    await pay(await request(other, '99'), 99_000_000n, 0);

    const week = await summary('7');
    expect(week.statusCode, week.body).toBe(200);
    const today = t.clock.now().toISOString().slice(0, 10);
    expect(week.json()).toMatchObject({
      days: 7,
      since: new Date(t.clock.now().getTime() - 6 * DAY_MS).toISOString().slice(0, 10),
      currencies: [
        {
          currency: 'USDC-base',
          symbol: 'USDC',
          network: 'base',
          received: '25',
          receivedPayments: 2,
          paidOut: '4',
          paidOutPayments: 1,
        },
      ],
      linksAwaitingPayment: { count: 0, more: false },
      failingEndpoints: [],
    });
    expect(week.json().daily).toHaveLength(3);
    expect(week.json().daily.at(-1)).toEqual({
      day: today,
      currency: 'USDC-base',
      received: '10',
      paidOut: '0',
    });
    expect((await summary('90')).json().currencies[0].received).toBe('26');

    // A reorganisation takes a payment back: its day's total with it.
    await t.db.delete(payments).where(eq(payments.id, old.id));
    expect((await summary('90')).json().currencies[0]).toMatchObject({
      received: '25',
      receivedPayments: 2,
    });
    // A statement that changes a payment's day moves its total with it.
    await t.db
      .update(payments)
      .set({ timestamp: new Date(t.clock.now().getTime() - 10 * DAY_MS) })
      .where(eq(payments.id, moved.id));
    expect((await summary('7')).json().currencies[0]).toMatchObject({
      received: '10',
      receivedPayments: 1,
    });
    expect((await summary('30')).json().currencies[0]).toMatchObject({ received: '25' });
    // Another account's payment is its own.
    expect((await summary('7', other)).json().currencies[0]).toMatchObject({ received: '99' });
    const rows = await t.db
      .select()
      .from(paymentDailyTotals)
      .where(eq(paymentDailyTotals.accountId, shop.accountId));
    // Days with payments, and the two left at zero (the reorganised one, the moved one's).
    expect(rows).toHaveLength(5);
    expect(rows.filter((row) => row.payments === 0)).toHaveLength(2);
  });

  it('counts links awaiting payment and names failing endpoints', async () => {
    const tenant = await createTenant(t.db, 'Links and hooks');
    await t.db.insert(webhooks).values([
      { id: 'whk_ok', accountId: tenant.accountId, url: 'https://ok.example/h', secretSealed: 'x' },
      {
        id: 'whk_bad',
        accountId: tenant.accountId,
        url: 'https://bad.example/h',
        secretSealed: 'x',
      },
    ]);
    const at = t.clock.now();
    await t.db.insert(webhookDeliveries).values([
      {
        id: '01JDX0000000000000000000A1',
        webhookId: 'whk_ok',
        event: 'payment.confirmed',
        body: '{}',
        status: 'delivered',
        attempts: 1,
        lastStatusCode: 200,
        nextAttemptAt: at,
      },
      {
        id: '01JDX0000000000000000000A2',
        webhookId: 'whk_bad',
        event: 'payment.confirmed',
        body: '{}',
        status: 'failed',
        attempts: 8,
        lastStatusCode: 500,
        lastError: 'HTTP 500',
        nextAttemptAt: at,
      },
      {
        id: '01JDX0000000000000000000A3',
        webhookId: 'whk_bad',
        event: 'payment.confirmed',
        body: '{}',
        status: 'pending',
        attempts: 2,
        lastStatusCode: 503,
        lastError: 'HTTP 503',
        nextAttemptAt: at,
      },
    ]);
    // Two links awaiting payment; one expired and one paid do not count.
    const later = new Date(at.getTime() + DAY_MS);
    await t.db.insert(securePayments).values(
      [
        { status: 'pending' as const, expiresAt: later },
        { status: 'pending' as const, expiresAt: later },
        { status: 'pending' as const, expiresAt: new Date(at.getTime() - 1) },
        { status: 'completed' as const, expiresAt: later },
      ].map((link, i) => ({
        ...link,
        token: `01SUMMARY${String(i).padStart(17, '0')}`,
        accountId: tenant.accountId,
        network: 'base',
      })),
    );
    const res = await summary('30', tenant);
    expect(res.json().linksAwaitingPayment).toEqual({ count: 2, more: false });
    expect(res.json().failingEndpoints).toEqual([
      { id: 'whk_bad', url: 'https://bad.example/h', failing: 2, lastError: 'HTTP 503' },
    ]);
    expect(res.json().currencies).toEqual([]);
  });

  it('refuses days other than 7, 30 and 90', async () => {
    expect((await summary('14')).statusCode).toBe(400);
  });
});
