import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { queryRows } from '../db/client.ts';
import { requestSchedules, requests } from '../db/schema.ts';
import { parseStartDate } from './recurring.ts';

/**
 * Recurring requests over HTTP on the real app, on the test clock (2026-11-22T12:00:00Z):
 * `POST /v2/request` with `recurrence` (the original and its schedule), the status record's
 * recurrence fields, `PATCH /v2/request/{id}`, and occurrences a client makes itself with
 * `originalRequestId`.
 */

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const START = '2026-12-01T09:00:00Z';

let t: TestApp;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t.db, 'Shop A');
  b = await createTenant(t.db, 'Shop B');
});
afterAll(() => t.close());

const asA = () => ({ 'x-api-key': a.apiKey });
const post = (extra: Record<string, unknown>, headers = asA()) =>
  t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers,
    payload: {
      amount: '25',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: PAYEE,
      ...extra,
    },
  });
const get = (requestId: string, headers = asA()) =>
  t.app.inject({ method: 'GET', url: `/v2/request/${requestId}`, headers });
const patch = (requestId: string, payload: unknown, headers = asA()) =>
  t.app.inject({
    method: 'PATCH',
    url: `/v2/request/${requestId}`,
    headers,
    payload: payload as object,
  });

async function recurring(
  recurrence: Record<string, unknown> = { startDate: START, frequency: 'MONTHLY' },
): Promise<{ requestId: string; paymentReference: string }> {
  const res = await post({ recurrence });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const count = async (table: 'requests' | 'request_schedules') => {
  const [row] = await queryRows<{ n: number }>(
    t.db,
    sql`select count(*)::int as n from ${sql.identifier(table)}`,
  );
  return row?.n ?? 0;
};

function fieldErrors(res: { statusCode: number; body: string; json: () => unknown }) {
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json() as { message: string; errors: unknown[] };
  expect(body.message).toBe('Validation failed');
  return body.errors;
}

describe('POST /v2/request with recurrence', () => {
  it('creates the original, occurrence 0, and its schedule at the next calendar date', async () => {
    const { requestId, paymentReference } = await recurring();
    expect(paymentReference).toMatch(/^0x[0-9a-f]{16}$/);
    const status = await get(requestId);
    expect(status.statusCode, status.body).toBe(200);
    const body = status.json();
    expect(body.recurrence).toEqual({
      startDate: '2026-12-01T09:00:00.000Z',
      frequency: 'MONTHLY',
    });
    expect(body.isRecurrenceStopped).toBe(false);
    // The reference types these as strings: absent, not null, on an original.
    expect(body).not.toHaveProperty('originalRequestId');
    expect(body).not.toHaveProperty('originalRequestPaymentReference');

    const [row] = await t.db.select().from(requests).where(eq(requests.requestId, requestId));
    expect(row?.occurrence).toBe(0);
    const [schedule] = await t.db
      .select()
      .from(requestSchedules)
      .where(eq(requestSchedules.requestRowId, row?.id ?? ''));
    expect(schedule).toMatchObject({
      accountId: a.accountId,
      frequency: 'MONTHLY',
      stopped: false,
      nextOccurrence: 1,
    });
    expect(schedule?.startDate.toISOString()).toBe('2026-12-01T09:00:00.000Z');
    expect(schedule?.nextAt.toISOString()).toBe('2027-01-01T09:00:00.000Z');
  });

  it('shows a plain request with no recurrence fields and isRecurrenceStopped false', async () => {
    const plain = await post({});
    const body = (await get(plain.json().requestId)).json();
    expect(body.isRecurrenceStopped).toBe(false);
    for (const field of ['recurrence', 'originalRequestId', 'originalRequestPaymentReference'])
      expect(body).not.toHaveProperty(field);
  });

  it.each([
    ['2026-12-01', '2026-12-01T00:00:00.000Z'],
    ['2026-11-22', '2026-11-22T00:00:00.000Z'],
    ['2026-12-01T09:30Z', '2026-12-01T09:30:00.000Z'],
    ['2026-12-01T09:00:00.250+02:00', '2026-12-01T07:00:00.250Z'],
    // Today (23 November there) as a local midnight east of UTC: the day's grace accepts it.
    ['2026-11-23T00:00:00+14:00', '2026-11-22T10:00:00.000Z'],
  ])('accepts startDate %s as %s', async (startDate, stored) => {
    const { requestId } = await recurring({ startDate, frequency: 'WEEKLY' });
    expect((await get(requestId)).json().recurrence).toEqual({
      startDate: stored,
      frequency: 'WEEKLY',
    });
  });

  it.each([
    ['2026-02-30', 'format'],
    ['2026-13-01', 'format'],
    ['2026-12-01T24:00:00Z', 'format'],
    ['2026-12-01T09:00:00', 'format'],
    ['01/12/2026', 'format'],
    ['tomorrow', 'format'],
    ['2026-12-01T09:00:00+25:00', 'format'],
    ['2026-11-21T11:59:59Z', 'past'],
    ['2026-11-22T00:00:00+14:00', 'past'],
    ['2020-01-01', 'past'],
  ])('refuses startDate %s (%s) and writes nothing', async (startDate, kind) => {
    const before = [await count('requests'), await count('request_schedules')];
    const res = await post({ recurrence: { startDate, frequency: 'DAILY' } });
    expect(fieldErrors(res)).toEqual([
      {
        field: 'recurrence.startDate',
        message:
          kind === 'past'
            ? 'must not be in the past'
            : 'must be an ISO 8601 date or date-time with a time zone, such as 2026-12-01 or 2026-12-01T09:00:00Z',
      },
    ]);
    expect([await count('requests'), await count('request_schedules')]).toEqual(before);
  });

  it('refuses a missing startDate and an unknown frequency by the schema (unknown fields ignored)', async () => {
    const errors = fieldErrors(await post({ recurrence: { frequency: 'HOURLY', every: 2 } }));
    expect(errors).toHaveLength(2);
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'recurrence.frequency', message: 'must be equal to one of the allowed values' },
        { field: 'recurrence.startDate', message: 'is required' },
      ]),
    );
  });

  it('refuses recurrence together with an original', async () => {
    const { requestId } = await recurring();
    const res = await post({
      recurrence: { startDate: START, frequency: 'DAILY' },
      originalRequestId: requestId,
    });
    expect(fieldErrors(res)).toEqual([
      {
        field: 'recurrence',
        message:
          'cannot be sent with originalRequestId or originalRequestPaymentReference: an occurrence follows its original’s schedule',
      },
    ]);
  });

  it('checks the request itself as any other: a bad payee writes no schedule', async () => {
    const before = await count('request_schedules');
    const res = await post({ payee: 'nope', recurrence: { startDate: START, frequency: 'DAILY' } });
    expect(res.statusCode).toBe(400);
    expect(await count('request_schedules')).toBe(before);
  });
});

describe('PATCH /v2/request/{id}', () => {
  it('stops and resumes the series, answering the status record', async () => {
    const { requestId } = await recurring();
    const stopped = await patch(requestId, { isRecurrenceStopped: true });
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(stopped.json()).toMatchObject({ requestId, isRecurrenceStopped: true });
    expect((await get(requestId)).json().isRecurrenceStopped).toBe(true);
    // Stopping twice changes nothing.
    expect((await patch(requestId, { isRecurrenceStopped: true })).json().isRecurrenceStopped).toBe(
      true,
    );
    const resumed = await patch(requestId, { isRecurrenceStopped: false });
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json().isRecurrenceStopped).toBe(false);
  });

  it('answers 404 for an unknown request and for another account’s', async () => {
    const { requestId } = await recurring();
    const unknown = await patch(`01${'0'.repeat(64)}`, { isRecurrenceStopped: true });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({
      code: 'request_not_found',
      message: 'Request not found',
    });
    const foreign = await patch(
      requestId,
      { isRecurrenceStopped: true },
      { 'x-api-key': b.apiKey },
    );
    expect(foreign.statusCode).toBe(404);
    expect((await get(requestId)).json().isRecurrenceStopped).toBe(false);
  });

  it('answers 400 request_not_recurring for a request of no series', async () => {
    const plain = (await post({})).json().requestId as string;
    const res = await patch(plain, { isRecurrenceStopped: true });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      code: 'request_not_recurring',
      message: `Request ${plain} is not recurring`,
    });
  });

  it('validates the body: isRecurrenceStopped is a required boolean (unknown fields ignored)', async () => {
    const { requestId } = await recurring();
    expect(fieldErrors(await patch(requestId, {}))).toEqual([
      { field: 'isRecurrenceStopped', message: 'is required' },
    ]);
    expect(
      fieldErrors(await patch(requestId, { isRecurrenceStopped: 'yes', frequency: 'DAILY' })),
    ).toEqual([{ field: 'isRecurrenceStopped', message: 'must be boolean' }]);
    expect((await get(requestId)).json().isRecurrenceStopped).toBe(false);
  });
});

describe('POST /v2/request with originalRequestId', () => {
  it('makes an occurrence of the caller’s recurring request, by id or by payment reference', async () => {
    const original = await recurring();
    const byId = await post({ originalRequestId: original.requestId, amount: '30' });
    expect(byId.statusCode, byId.body).toBe(201);
    const byReference = await post({
      originalRequestPaymentReference: original.paymentReference.slice(2).toUpperCase(),
    });
    expect(byReference.statusCode, byReference.body).toBe(201);
    const both = await post({
      originalRequestId: original.requestId.toUpperCase().replace('0X', '0x'),
      originalRequestPaymentReference: original.paymentReference,
    });
    expect(both.statusCode, both.body).toBe(201);
    for (const res of [byId, byReference, both]) {
      const body = (await get(res.json().requestId)).json();
      expect(body).toMatchObject({
        originalRequestId: original.requestId,
        originalRequestPaymentReference: original.paymentReference,
        isRecurrenceStopped: false,
      });
      expect(body).not.toHaveProperty('recurrence');
    }
    expect((await get(byId.json().requestId)).json().expectedAmount).toBe('30');

    // PATCH on an occurrence acts on its series.
    const stopped = await patch(byId.json().requestId, { isRecurrenceStopped: true });
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(stopped.json().isRecurrenceStopped).toBe(true);
    expect((await get(original.requestId)).json().isRecurrenceStopped).toBe(true);
    expect((await get(byReference.json().requestId)).json().isRecurrenceStopped).toBe(true);
  });

  it('answers 404 for an unknown original and for another account’s, writing nothing', async () => {
    const original = await recurring();
    const before = await count('requests');
    for (const [extra, headers] of [
      [{ originalRequestId: `01${'f'.repeat(64)}` }, asA()],
      [{ originalRequestPaymentReference: '0x0123456789abcdef' }, asA()],
      [{ originalRequestId: original.requestId }, { 'x-api-key': b.apiKey }],
      [{ originalRequestPaymentReference: original.paymentReference }, { 'x-api-key': b.apiKey }],
    ] as const) {
      const res = await post(extra, headers);
      expect(res.statusCode, JSON.stringify(extra)).toBe(404);
      expect(res.json()).toMatchObject({
        code: 'original_request_not_found',
        message: 'Original request not found',
      });
    }
    expect(await count('requests')).toBe(before);
  });

  it('answers 400 when the named request is not the original of a series', async () => {
    const plain = (await post({})).json().requestId as string;
    const res = await post({ originalRequestId: plain });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'request_not_recurring',
      message: `Request ${plain} is not the original of a recurring request`,
    });
    // An occurrence is not an original either: name the series by its original.
    const original = await recurring();
    const occurrence = (await post({ originalRequestId: original.requestId })).json();
    const nested = await post({ originalRequestId: occurrence.requestId });
    expect(nested.json()).toMatchObject({
      code: 'request_not_recurring',
      message: `Request ${occurrence.requestId} is not the original of a recurring request`,
    });
  });

  it('refuses a malformed reference and one that is not the named original’s', async () => {
    const first = await recurring();
    const second = await recurring();
    expect(fieldErrors(await post({ originalRequestPaymentReference: '0x123' }))).toEqual([
      {
        field: 'originalRequestPaymentReference',
        message: 'must be a payment reference: 0x and 16 hex digits',
      },
    ]);
    expect(
      fieldErrors(
        await post({
          originalRequestId: first.requestId,
          originalRequestPaymentReference: second.paymentReference,
        }),
      ),
    ).toEqual([
      {
        field: 'originalRequestPaymentReference',
        message: 'is not the payment reference of originalRequestId',
      },
    ]);
  });
});

describe('parseStartDate', () => {
  it('reads real dates and times with their zone, and refuses impossible ones', () => {
    expect(parseStartDate('2028-02-29')?.toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(parseStartDate('2027-02-29')).toBeNull();
    expect(parseStartDate('2026-04-31')).toBeNull();
    expect(parseStartDate('2026-12-31T23:59:59.999999999-00:30')?.toISOString()).toBe(
      '2027-01-01T00:29:59.999Z',
    );
    expect(parseStartDate('2026-12-01T09:60:00Z')).toBeNull();
    expect(parseStartDate(' 2026-12-01')).toBeNull();
  });
});
