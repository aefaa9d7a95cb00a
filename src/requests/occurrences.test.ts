import { asc, eq, inArray } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { requestSchedules, requests, webhookDeliveries } from '../db/schema.ts';
import {
  createOccurrenceGenerator,
  generateRound,
  type OccurrenceGenerator,
  ROUND_SIZE,
} from './occurrences.ts';

/**
 * The generator of recurring requests' occurrences, on the test clock: each occurrence once, on
 * its calendar date, as a copy of the original with ids of its own and its `request.recurring`
 * delivery in the outbox; missed ones caught up in order; none while stopped, and none
 * back-filled after a resume.
 */

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const PAYER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const NOW = new Date('2026-11-22T12:00:00Z');

let t: TestApp;
let tenant: Tenant;
let generator: OccurrenceGenerator;
let webhookId: string;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db);
  generator = createOccurrenceGenerator({ db: t.db, clock: t.clock, logger: t.app.log as never });
  const hook = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { url: 'https://hooks.shop.example/payreq' },
  });
  expect(hook.statusCode, hook.body).toBe(201);
  webhookId = hook.json().id;
});
afterAll(() => t.close());
// Each test's schedules end with it: the next one moves the clock years on.
afterEach(async () => {
  await t.db.update(requestSchedules).set({ stopped: true });
});

async function original(
  recurrence: { startDate: string; frequency: string },
  extra: Record<string, unknown> = {},
): Promise<{ requestId: string; paymentReference: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: { 'x-api-key': tenant.apiKey },
    payload: {
      amount: '49.99',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: PAYEE,
      recurrence,
      ...extra,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** The occurrences of one original, by index. */
const occurrencesOf = (requestId: string) =>
  t.db
    .select()
    .from(requests)
    .where(eq(requests.originalRequestId, requestId))
    .orderBy(asc(requests.occurrence));

const scheduleOf = async (requestId: string) => {
  const [row] = await t.db
    .select({ schedule: requestSchedules })
    .from(requestSchedules)
    .innerJoin(requests, eq(requests.id, requestSchedules.requestRowId))
    .where(eq(requests.requestId, requestId));
  if (!row) throw new Error(`no schedule for ${requestId}`);
  return row.schedule;
};

const recurringDeliveries = async (requestIds: readonly string[]) => {
  const rows = await t.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.event, 'request.recurring'));
  return rows
    .map((row) => JSON.parse(row.body) as Record<string, unknown>)
    .filter((body) => requestIds.includes(body.originalRequestId as string));
};

const patch = (requestId: string, isRecurrenceStopped: boolean) =>
  t.app.inject({
    method: 'PATCH',
    url: `/v2/request/${requestId}`,
    headers: { 'x-api-key': tenant.apiKey },
    payload: { isRecurrenceStopped },
  });

/** Runs the generator at `at`, leaving every earlier-due schedule of other tests done. */
async function tickAt(at: string) {
  t.clock.set(new Date(at));
  return (await generator.tick()).generated;
}

describe('the occurrence generator', () => {
  it('makes occurrence 1 on its date, not a moment before, as a copy with ids of its own', async () => {
    t.clock.set(NOW);
    const first = await original(
      { startDate: '2026-12-01T09:00:00Z', frequency: 'MONTHLY' },
      {
        payer: PAYER,
        reference: 'SUB-7',
        customerInfo: { firstName: 'Ada', address: { country: 'GB' } },
      },
    );
    expect(await tickAt('2026-12-31T09:00:00Z')).toEqual([]);
    expect(await tickAt('2027-01-01T08:59:59.999Z')).toEqual([]);
    const made = await tickAt('2027-01-01T09:00:00Z');
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ originalRequestId: first.requestId, occurrence: 1 });

    const [source] = await t.db
      .select()
      .from(requests)
      .where(eq(requests.requestId, first.requestId));
    const [occurrence] = await occurrencesOf(first.requestId);
    if (!source || !occurrence) throw new Error('rows missing');
    const copied = (row: typeof source) => ({
      accountId: row.accountId,
      clientIdId: row.clientIdId,
      network: row.network,
      invoiceCurrency: row.invoiceCurrency,
      paymentCurrency: row.paymentCurrency,
      expectedAmount: row.expectedAmount,
      payee: row.payee,
      payer: row.payer,
      reference: row.reference,
      customerInfo: row.customerInfo,
      origin: row.origin,
      status: row.status,
    });
    expect(copied(occurrence)).toEqual(copied(source));
    expect(occurrence.requestId).not.toBe(source.requestId);
    expect(occurrence.paymentReference).not.toBe(source.paymentReference);
    expect(occurrence).toMatchObject({
      requestId: made[0]?.requestId,
      originalRequestId: first.requestId,
      originalRequestPaymentReference: first.paymentReference.slice(2),
      occurrence: 1,
    });

    // Its status record points at the original; its payment is its own.
    const status = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${occurrence.requestId}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(status.json()).toMatchObject({
      originalRequestId: first.requestId,
      originalRequestPaymentReference: first.paymentReference,
      isRecurrenceStopped: false,
      expectedAmount: '49.99',
      reference: 'SUB-7',
      payer: PAYER,
    });

    // Announced once, to the account's endpoint, in the reference's fields.
    const [delivery, ...others] = await t.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.event, 'request.recurring'));
    expect(others).toEqual([]);
    expect(delivery?.webhookId).toBe(webhookId);
    expect(JSON.parse(delivery?.body ?? '{}')).toEqual({
      event: 'request.recurring',
      requestId: occurrence.requestId,
      requestID: occurrence.requestId,
      paymentReference: `0x${occurrence.paymentReference}`,
      originalRequestId: first.requestId,
      originalRequestPaymentReference: first.paymentReference,
      timestamp: '2027-01-01T09:00:00.000Z',
    });
    expect((await scheduleOf(first.requestId)).nextAt.toISOString()).toBe(
      '2027-02-01T09:00:00.000Z',
    );
  });

  it('follows the calendar: a schedule from 31 January falls on 28 February, then 31 March', async () => {
    t.clock.set(new Date('2027-01-30T00:00:00Z'));
    const { requestId } = await original({ startDate: '2027-01-31', frequency: 'MONTHLY' });
    expect(await tickAt('2027-02-27T23:59:59Z')).toEqual([]);
    expect(await tickAt('2027-02-28T00:00:00Z')).toMatchObject([{ occurrence: 1 }]);
    expect((await scheduleOf(requestId)).nextAt.toISOString()).toBe('2027-03-31T00:00:00.000Z');
    expect(await tickAt('2027-03-30T23:59:59Z')).toEqual([]);
    expect(await tickAt('2027-03-31T00:00:00Z')).toMatchObject([{ occurrence: 2 }]);
  });

  it('catches up missed occurrences in date order after downtime, every schedule served', async () => {
    t.clock.set(new Date('2027-04-01T00:00:00Z'));
    const daily = await original({ startDate: '2027-04-02T06:00:00Z', frequency: 'DAILY' });
    const weekly = await original({ startDate: '2027-04-02T06:00:00Z', frequency: 'WEEKLY' });
    // Down until the 9th: the daily schedule owes 3rd..9th, the weekly one the 9th.
    t.clock.set(new Date('2027-04-09T06:00:00Z'));
    const firstRound = await generateRound(t.db, t.clock.now());
    expect(firstRound.served).toBe(2);
    expect(firstRound.generated.map((g) => g.occurrence)).toEqual([1, 1]);
    const rest = (await generator.tick()).generated;
    expect(rest.map((g) => g.occurrence)).toEqual([2, 3, 4, 5, 6, 7]);
    expect((await occurrencesOf(daily.requestId)).map((row) => row.occurrence)).toEqual([
      1, 2, 3, 4, 5, 6, 7,
    ]);
    expect((await occurrencesOf(weekly.requestId)).map((row) => row.occurrence)).toEqual([1]);
    expect(await recurringDeliveries([daily.requestId, weekly.requestId])).toHaveLength(8);
    expect((await scheduleOf(daily.requestId)).nextAt.toISOString()).toBe(
      '2027-04-10T06:00:00.000Z',
    );
  });

  it('serves more schedules than one round holds in one tick', async () => {
    t.clock.set(new Date('2027-05-01T00:00:00Z'));
    const ids: string[] = [];
    for (let i = 0; i <= ROUND_SIZE; i++)
      ids.push((await original({ startDate: '2027-05-02', frequency: 'YEARLY' })).requestId);
    const made = await tickAt('2028-05-02T00:00:00Z');
    expect(made.filter((g) => ids.includes(g.originalRequestId))).toHaveLength(ROUND_SIZE + 1);
    const rows = await t.db
      .select({ id: requests.originalRequestId })
      .from(requests)
      .where(inArray(requests.originalRequestId, ids));
    expect(new Set(rows.map((row) => row.id)).size).toBe(ROUND_SIZE + 1);
    expect(rows).toHaveLength(ROUND_SIZE + 1);
  });

  it('never makes an occurrence twice: a second tick, or a schedule set back, makes none', async () => {
    t.clock.set(new Date('2028-06-01T00:00:00Z'));
    const { requestId } = await original({ startDate: '2028-06-01', frequency: 'DAILY' });
    expect(await tickAt('2028-06-04T00:00:00Z')).toHaveLength(3);
    expect(await generator.tick()).toEqual({ generated: [], more: false });
    // A schedule that lost its progress (say, restored from an older backup) finds the
    // occurrences already there: none is made again, none announced again, and it moves on.
    await t.db
      .update(requestSchedules)
      .set({ nextOccurrence: 1, nextAt: new Date('2028-06-02T00:00:00Z') })
      .where(eq(requestSchedules.requestRowId, (await scheduleOf(requestId)).requestRowId));
    expect(await generator.tick()).toEqual({ generated: [], more: false });
    expect(await occurrencesOf(requestId)).toHaveLength(3);
    expect(await recurringDeliveries([requestId])).toHaveLength(3);
    expect((await scheduleOf(requestId)).nextOccurrence).toBe(4);
  });

  it('makes nothing while stopped, and resumes at the first date after now without back-filling', async () => {
    t.clock.set(new Date('2028-07-01T00:00:00Z'));
    const { requestId } = await original({ startDate: '2028-07-01T08:00:00Z', frequency: 'DAILY' });
    expect(await tickAt('2028-07-02T08:00:00Z')).toMatchObject([{ occurrence: 1 }]);
    expect((await patch(requestId, true)).statusCode).toBe(200);
    expect(await tickAt('2028-07-05T12:00:00Z')).toEqual([]);
    // Resumed on the 5th at noon: the 3rd, 4th and 5th (08:00) were skipped for good.
    expect((await patch(requestId, false)).statusCode).toBe(200);
    expect(await generator.tick()).toEqual({ generated: [], more: false });
    expect(await tickAt('2028-07-06T08:00:00Z')).toMatchObject([{ occurrence: 5 }]);
    expect((await occurrencesOf(requestId)).map((row) => row.occurrence)).toEqual([1, 5]);
    // Stopped and resumed before anything fell due: nothing is skipped.
    await patch(requestId, true);
    await patch(requestId, false);
    expect(await tickAt('2028-07-07T08:00:00Z')).toMatchObject([{ occurrence: 6 }]);
  });
});
