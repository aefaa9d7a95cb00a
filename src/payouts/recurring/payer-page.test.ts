import { eq } from 'drizzle-orm';
import type { Hex } from 'viem';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendAll } from '../../../test/chain.ts';
import { created, expectRefused, sign, statusOf } from '../../../test/recurring-http.ts';
import {
  apiKey,
  backendClient,
  type Headers,
  local,
  setupRequestsApp,
  t,
  tenantA,
  tenantB,
  wallet,
} from '../../../test/requests.ts';
import { occurrenceDate } from '../../base/recurrence.ts';
import { recurringPayouts } from '../../db/schema.ts';
import { ensurePayPageClientId } from '../../pay-page/client-id.ts';
import { MESSAGES, PAYER_MISMATCH_MESSAGE } from './refusals.ts';

/**
 * The payer's routes of a recurring payout, by the pay token of its `payUrl`, on the real app
 * and a local chain with the real recurring proxy: the pay page's own client ID reads any
 * account's schedule, gets the approval its payer needs (read from the chain) and posts the
 * signed permit; an account's own credentials reach only its own schedules.
 */

setupRequestsApp();

const TOKEN_URL = /^http:\/\/api\.payreq\.test\/\?recurring=([0-9a-f]{64})$/;
let page: Headers;
let pageOrigin: string;

beforeAll(async () => {
  pageOrigin = new URL(t.config.payUrl).origin;
  page = { 'x-client-id': await ensurePayPageClientId(t.db, t.config.payUrl), origin: pageOrigin };
});

// Each test's approvals count only its own schedules.
beforeEach(async () => {
  await t.db.update(recurringPayouts).set({ status: 'cancelled', nextPaymentAt: null });
});

const base = (token: string) => `/v2/payouts/recurring/token/${token}`;
const get = (url: string, headers: Headers = page) => t.app.inject({ method: 'GET', url, headers });
const post = (token: string, permitSignature: string, headers: Headers = page) =>
  t.app.inject({ method: 'POST', url: base(token), headers, payload: { permitSignature } });

function tokenOf(schedule: { payUrl: string }): string {
  const token = TOKEN_URL.exec(schedule.payUrl)?.[1];
  if (!token) throw new Error(`not a pay URL: ${schedule.payUrl}`);
  return token;
}

/** Sends the answer's approvals from the payer's wallet, as the page's wallet does. */
async function approve(transactions: { to: Hex; data: Hex; value: { hex: Hex } }[]) {
  await sendAll(
    local.chain,
    wallet(2),
    transactions.map((tx) => ({ ...tx, value: tx.value.hex, chainId: local.chain.chainId })),
  );
}

describe('the pay URL', () => {
  it('comes with the creation and the schedule’s status: PAY_URL/?recurring=<64 hex digits>', async () => {
    const first = await created();
    const second = await created();
    expect(first.payUrl).toMatch(TOKEN_URL);
    expect(tokenOf(second)).not.toBe(tokenOf(first));
    const status = await t.app.inject({
      method: 'GET',
      url: `/v2/payouts/recurring/${first.id}`,
      headers: apiKey(tenantA),
    });
    expect(status.json().payUrl).toBe(first.payUrl);
  });
});

describe('GET /v2/payouts/recurring/token/{token}', () => {
  it('shows the pay page any account’s schedule: amount, dates, parties and the permit', async () => {
    const start = new Date(Date.UTC(2031, 0, 31, 9, 30));
    const schedule = await created(start);
    const res = await get(base(tokenOf(schedule)));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(pageOrigin);
    expect(res.json()).toEqual({
      id: schedule.id,
      status: 'pending',
      network: 'base',
      chainId: 8453,
      currency: 'USDC-base',
      amount: '5',
      feeAmount: '0',
      frequency: 'MONTHLY',
      startDate: start.toISOString(),
      // The calendar: the 31st, then the last day of shorter months.
      paymentDates: [0, 1, 2].map((n) => occurrenceDate(start, 'MONTHLY', n).toISOString()),
      totalPayments: 3,
      processedPayments: 0,
      lastPaymentDate: null,
      nextPaymentDate: start.toISOString(),
      payer: wallet(2).address,
      payee: wallet(1).address,
      recurringPaymentPermit: schedule.recurringPaymentPermit,
    });
    expect(res.json().paymentDates.slice(1)).toEqual([
      '2031-02-28T09:30:00.000Z',
      '2031-03-31T09:30:00.000Z',
    ]);
  });

  it('gives an account its own schedules only; unknown and malformed tokens are not found', async () => {
    const schedule = await created();
    const token = tokenOf(schedule);
    expect((await get(base(token), apiKey(tenantA))).statusCode).toBe(200);
    expect((await get(base(token), backendClient(tenantA))).statusCode).toBe(200);
    const notFound = { statusCode: 404, message: MESSAGES.notFound, error: 'Not Found' };
    for (const [url, headers] of [
      [base(token), apiKey(tenantB)],
      [base(token), backendClient(tenantB)],
      [`${base(token)}/approval`, apiKey(tenantB)],
      [base('0'.repeat(64)), page],
      [base(token.toUpperCase()), page],
      [base(schedule.id), page],
      [`${base('0'.repeat(64))}/approval`, page],
    ] as const) {
      const res = await get(url, headers);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(404);
      expect(res.json()).toMatchObject(notFound);
    }
    const refused = await post(token, await sign(schedule.recurringPaymentPermit), apiKey(tenantB));
    expect(refused.statusCode).toBe(404);
    expect(await statusOf(schedule.id)).toBe('pending');
  });

  it('keeps the pay page’s client ID off the id routes: the token is its only way in', async () => {
    const schedule = await created();
    const res = await get(`/v2/payouts/recurring/${schedule.id}`);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('credential_not_accepted');
  });
});

describe('GET /v2/payouts/recurring/token/{token}/approval', () => {
  it('answers the payer’s approval of every payment, then none once it is on chain', async () => {
    const schedule = await created();
    const url = `${base(tokenOf(schedule))}/approval?wallet=${wallet(2).address.toLowerCase()}`;
    const before = await get(url);
    expect(before.statusCode, before.body).toBe(200);
    const body = before.json();
    // The same approval the creation answered: 3 payments of 5 USDC.
    expect(body.transactions).toEqual(schedule.transactions);
    expect(body.metadata).toEqual({
      stepsRequired: 2,
      totalNeededAllowance: '15',
      currentAllowance: '0',
      additionalAllowanceNeeded: '15',
      existingPaymentsAmount: '0',
    });
    await approve(body.transactions);
    const after = await get(url);
    expect(after.json()).toEqual({
      transactions: [],
      metadata: {
        stepsRequired: 1,
        totalNeededAllowance: '15',
        currentAllowance: '15',
        additionalAllowanceNeeded: '0',
        existingPaymentsAmount: '0',
      },
    });
  });

  it('keeps the allowance the payer’s other schedules of the token still need', async () => {
    const first = await created();
    await approve((await get(`${base(tokenOf(first))}/approval`)).json().transactions);
    const second = await created();
    const res = await get(`${base(tokenOf(second))}/approval`);
    expect(res.json().metadata).toEqual({
      stepsRequired: 2,
      totalNeededAllowance: '30',
      currentAllowance: '15',
      additionalAllowanceNeeded: '15',
      existingPaymentsAmount: '15',
    });
  });

  it('refuses another wallet than the payer with 403, and an ended schedule with 400', async () => {
    const schedule = await created();
    const token = tokenOf(schedule);
    const res = await get(`${base(token)}/approval?wallet=${wallet(3).address}`);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      statusCode: 403,
      message: PAYER_MISMATCH_MESSAGE,
      code: 'recurring_payer_mismatch',
    });
    await t.db
      .update(recurringPayouts)
      .set({ status: 'completed' })
      .where(eq(recurringPayouts.id, schedule.id));
    expectRefused(await get(`${base(token)}/approval`), MESSAGES.alreadyCompleted);
  });
});

describe('POST /v2/payouts/recurring/token/{token}', () => {
  it('activates with the payer’s signature, as the id route does, and refuses it twice', async () => {
    const schedule = await created();
    const token = tokenOf(schedule);
    expectRefused(
      await post(token, await sign(schedule.recurringPaymentPermit, wallet(3))),
      MESSAGES.invalidSignature,
    );
    const signature = await sign(schedule.recurringPaymentPermit);
    const res = await post(token, signature);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({ message: MESSAGES.activated, id: schedule.id, status: 'active' });
    const [row] = await t.db
      .select()
      .from(recurringPayouts)
      .where(eq(recurringPayouts.id, schedule.id));
    expect(row?.signature).toBe(signature);
    expectRefused(await post(token, signature), MESSAGES.alreadyActive);
    expect((await get(base(token))).json().status).toBe('active');
  });

  it('refuses a cancelled schedule', async () => {
    const schedule = await created();
    await t.app.inject({
      method: 'PATCH',
      url: `/v2/payouts/recurring/${schedule.id}`,
      headers: apiKey(tenantA),
      payload: { action: 'cancel' },
    });
    const token = tokenOf(schedule);
    expectRefused(
      await post(token, await sign(schedule.recurringPaymentPermit)),
      MESSAGES.alreadyCancelled,
    );
    expectRefused(await get(`${base(token)}/approval`), MESSAGES.alreadyCancelled);
    expect((await get(base(token))).json()).toMatchObject({
      status: 'cancelled',
      nextPaymentDate: null,
    });
  });
});
