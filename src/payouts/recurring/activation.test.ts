import { eq } from 'drizzle-orm';
import { hashTypedData, recoverAddress } from 'viem';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  created,
  expectRefused,
  messageOf,
  sign,
  statusOf,
} from '../../../test/recurring-http.ts';
import {
  apiKey,
  backendClient,
  setupRequestsApp,
  t,
  tenantA,
  tenantB,
  wallet,
} from '../../../test/requests.ts';
import { recurringPayouts } from '../../db/schema.ts';
import { SCHEDULE_PERMIT_TYPES } from './permit.ts';
import { MESSAGES } from './refusals.ts';

/**
 * `POST` and `GET /v2/payouts/recurring/{id}` on the real app: a schedule created over HTTP,
 * its permit signed by the payer's wallet (viem's signTypedData over the answer's typed data,
 * as a wallet's front end would), activated and read; the signature refusals and the 404 of
 * api-facts §4.2 with their exact texts. (Cancel and unpause: changes.test.ts.)
 */

setupRequestsApp();

// The allowance a cancellation leaves counts the payer's other schedules: only this test's.
beforeEach(async () => {
  await t.db.update(recurringPayouts).set({ status: 'cancelled', nextPaymentAt: null });
});

describe('activation', () => {
  it('activates with the payer’s signature over the permit, then reads the schedule', async () => {
    const schedule = await created();
    const permit = schedule.recurringPaymentPermit;
    const signature = await sign(permit);
    const res = await call(
      'POST',
      schedule.id,
      { permitSignature: signature },
      backendClient(tenantA),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({ message: MESSAGES.activated, id: schedule.id, status: 'active' });
    const [row] = await t.db
      .select()
      .from(recurringPayouts)
      .where(eq(recurringPayouts.id, schedule.id));
    expect(row?.signature).toBe(signature);

    const read = await call('GET', schedule.id);
    expect(read.statusCode, read.body).toBe(200);
    const body = read.json();
    expect(body).toMatchObject({
      id: schedule.id,
      status: 'active',
      processedPayments: 0,
      totalPayments: 3,
      frequency: 'MONTHLY',
      amount: '5',
      currency: 'USDC-base',
      network: 'base',
      payer: wallet(2).address,
      payee: wallet(1).address,
      lastPaymentDate: null,
      nextPaymentDate: new Date(permit.values.firstPayment * 1000).toISOString(),
      failureCount: 0,
      failureReason: null,
      requests: [{ paymentReference: schedule.paymentReference, requestId: schedule.requestId }],
      payments: [],
    });
    expect(JSON.stringify(body)).not.toContain('customerInfo');
  });

  it('refuses a signature by another wallet, a malformed one and a second activation', async () => {
    const schedule = await created();
    const permit = schedule.recurringPaymentPermit;
    for (const permitSignature of [
      await sign(permit, wallet(3)),
      '0x1234',
      `0x${'ab'.repeat(65)}`,
    ]) {
      expectRefused(
        await call('POST', schedule.id, { permitSignature }),
        'Invalid signature provided',
      );
    }
    // Signed over other values (another amount) by the right wallet: still not this permit.
    const altered = await sign({ ...permit, values: { ...permit.values, amount: '6000000' } });
    expectRefused(
      await call('POST', schedule.id, { permitSignature: altered }),
      'Invalid signature provided',
    );
    expect(await statusOf(schedule.id)).toBe('pending');
    const good = await sign(permit);
    expect((await call('POST', schedule.id, { permitSignature: good })).statusCode).toBe(201);
    expectRefused(
      await call('POST', schedule.id, { permitSignature: good }),
      'Recurring payment is already active',
    );
  });

  it('hashes the permit it answers to what the payer signed (the contract’s digest)', async () => {
    const schedule = await created();
    const { domain, values } = schedule.recurringPaymentPermit;
    const message = messageOf(values);
    const digest = hashTypedData({
      domain,
      types: SCHEDULE_PERMIT_TYPES,
      primaryType: 'SchedulePermit',
      message,
    });
    const signature = await sign(schedule.recurringPaymentPermit);
    expect(await recoverAddress({ hash: digest, signature })).toBe(wallet(2).address);
  });
});

describe('not found', () => {
  it('answers 404 for an unknown id, a malformed one and another account’s, on every method', async () => {
    const schedule = await created();
    const body = { message: 'Recurring payment not found', error: 'Not Found', statusCode: 404 };
    for (const [id, headers] of [
      ['7d0c1b3e-8a39-4f0e-9a57-2b1a9d3c4e5f', apiKey(tenantA)],
      ['not-a-uuid', apiKey(tenantA)],
      [schedule.id, apiKey(tenantB)],
      [schedule.id, backendClient(tenantB)],
    ] as const) {
      for (const [method, payload] of [
        ['GET', undefined],
        ['POST', { permitSignature: `0x${'00'.repeat(65)}` }],
        ['PATCH', { action: 'cancel' }],
      ] as const) {
        const res = await call(method, id, payload, headers);
        expect(res.statusCode, `${method} ${id}: ${res.body}`).toBe(404);
        expect(res.json()).toMatchObject(body);
      }
    }
    expect(await statusOf(schedule.id)).toBe('pending');
  });
});
