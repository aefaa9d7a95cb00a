import { describe, expect, it } from 'vitest';
import { call, created } from '../../../test/recurring-http.ts';
import { apiKey, setupRequestsApp, t, tenantA, tenantB } from '../../../test/requests.ts';

/** `GET /v2/payouts/recurring` (ours): the account's recurring payouts, newest first. */

setupRequestsApp();

function list(query: string, tenant = tenantA) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/payouts/recurring?${query}`,
    headers: apiKey(tenant),
  });
}

describe('GET /v2/payouts/recurring', () => {
  it('lists the schedules newest first, page by page, by status, and only the account’s', async () => {
    const first = await created();
    t.clock.advance(60_000);
    const second = await created();
    t.clock.advance(60_000);
    const third = await created();
    expect((await call('PATCH', second.id, { action: 'cancel' })).statusCode).toBe(200);

    const one = await list('limit=2');
    expect(one.statusCode, one.body).toBe(200);
    const page = one.json();
    expect(page.recurringPayouts.map((r: { id: string }) => r.id)).toEqual([third.id, second.id]);
    // Each item is the schedule's own read, without its requests and payments.
    const { requests: _r, payments: _p, ...summary } = (await call('GET', third.id)).json();
    expect(page.recurringPayouts[0]).toEqual(summary);
    expect(page.recurringPayouts[0]).toMatchObject({
      status: 'pending',
      amount: '5',
      totalPayments: 3,
      nextPaymentDate: expect.any(String),
    });
    const two = await list(`limit=2&cursor=${page.pagination.nextCursor}`);
    expect(two.json().recurringPayouts.map((r: { id: string }) => r.id)).toEqual([first.id]);
    expect(two.json().pagination).toEqual({ limit: 2, nextCursor: null, hasMore: false });

    const cancelled = await list('status=cancelled');
    expect(cancelled.json().recurringPayouts).toMatchObject([
      { id: second.id, status: 'cancelled', nextPaymentDate: null },
    ]);
    expect((await list('', tenantB)).json().recurringPayouts).toEqual([]);
  });

  it('refuses an unknown status with a 400', async () => {
    const res = await list('status=running');
    expect(res.statusCode).toBe(400);
  });
});
