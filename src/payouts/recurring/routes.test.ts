import { eq } from 'drizzle-orm';
import { decodeFunctionData, getAddress, type Hex, hashTypedData, recoverAddress } from 'viem';
import { beforeEach, describe, expect, it } from 'vitest';
import { activeSchedule, insertSchedule, signPermit } from '../../../test/recurring.ts';
import {
  apiKey,
  backendClient,
  local,
  setupRequestsApp,
  t,
  tenantA,
  tenantB,
  wallet,
} from '../../../test/requests.ts';
import { recurringPayouts } from '../../db/schema.ts';
import { erc20Abi } from '../../payments/abis.ts';
import { claimDue, recordFailure, recordSent, recordSuccess } from './executions.ts';
import {
  SCHEDULE_PERMIT_TYPES,
  type SchedulePermitDomain,
  type SchedulePermitValues,
} from './permit.ts';
import { MESSAGES } from './routes.ts';
import { activate } from './store.ts';

/**
 * `/v2/payouts/recurring/{id}` on the real app: a schedule created over HTTP, its permit signed
 * by the payer's wallet (viem's signTypedData over the answer's typed data, as a wallet's front
 * end would), activated, read, cancelled and unpaused, and every 400 and 404 of api-facts §4.2
 * with its exact text. Executions are recorded through the executor's data layer.
 */

setupRequestsApp();

// The allowance a cancellation leaves counts the payer's other schedules: only this test's.
beforeEach(async () => {
  await t.db.update(recurringPayouts).set({ status: 'cancelled', nextPaymentAt: null });
});

const DAY = 86_400_000;
const url = (id: string) => `/v2/payouts/recurring/${id}`;
const call = (
  method: 'GET' | 'POST' | 'PATCH',
  id: string,
  payload?: object,
  headers = apiKey(tenantA),
) => t.app.inject({ method, url: url(id), headers, ...(payload && { payload }) });

/** Creates a recurring payout over HTTP: wallet(2) pays wallet(1) 5 USDC monthly, 3 times. */
async function created(start = new Date(t.clock.now().getTime() + DAY)) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/payouts',
    headers: apiKey(tenantA),
    payload: {
      payee: wallet(1).address,
      amount: '5',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      recurrence: {
        startDate: start.toISOString(),
        frequency: 'MONTHLY',
        totalPayments: 3,
        payer: wallet(2).address,
      },
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** The answer's permit values as a wallet's typed-data message: decimal strings to integers. */
function messageOf(values: Record<string, unknown>): SchedulePermitValues {
  return {
    ...(values as unknown as SchedulePermitValues),
    amount: BigInt(values.amount as string),
    feeAmount: BigInt(values.feeAmount as string),
    relayerFee: BigInt(values.relayerFee as string),
    nonce: BigInt(values.nonce as string),
    deadline: BigInt(values.deadline as string),
  };
}

/** Signs the answer's permit as a wallet does. */
function sign(
  permit: { domain: SchedulePermitDomain; values: Record<string, unknown> },
  signer = wallet(2),
) {
  return signer.signTypedData({
    domain: permit.domain,
    types: SCHEDULE_PERMIT_TYPES,
    primaryType: 'SchedulePermit',
    message: messageOf(permit.values),
  });
}

function expectRefused(
  res: { statusCode: number; body: string; json: () => Record<string, unknown> },
  message: string,
) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message });
}

const statusOf = async (id: string) =>
  (await t.db.select().from(recurringPayouts).where(eq(recurringPayouts.id, id)))[0]?.status;

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

describe('PATCH', () => {
  it('refuses an unknown action, naming it', async () => {
    const schedule = await created();
    expectRefused(await call('PATCH', schedule.id, { action: 'pause' }), 'Invalid action: pause');
    expectRefused(await call('PATCH', schedule.id, { action: 'CANCEL' }), 'Invalid action: CANCEL');
  });

  it('cancels, lowering the allowance to what the payer’s other schedules still need', async () => {
    const other = await created();
    const schedule = await created();
    expect(
      (
        await call('POST', schedule.id, {
          permitSignature: await sign(schedule.recurringPaymentPermit),
        })
      ).statusCode,
    ).toBe(201);
    expectRefused(
      await call('PATCH', schedule.id, { action: 'unpause' }),
      'Recurring payment is not paused',
    );
    const res = await call('PATCH', schedule.id, { action: 'cancel' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      id: schedule.id,
      status: 'cancelled',
      metadata: {
        remainingPayments: 3,
        remainingAmount: '15',
        processedPayments: 0,
        totalPayments: 3,
      },
    });
    expect(body.transactions).toHaveLength(1);
    const approval = decodeFunctionData({ abi: erc20Abi, data: body.transactions[0].data as Hex });
    expect(body.transactions[0].to).toBe(getAddress(local.chain.addresses.usdc));
    // The other schedule (3 × 5 USDC, still pending) keeps its allowance.
    expect(approval.args).toEqual([
      getAddress(other.recurringPaymentPermit.domain.verifyingContract),
      15_000_000n,
    ]);
    expect((await call('GET', schedule.id)).json()).toMatchObject({
      status: 'cancelled',
      nextPaymentDate: null,
    });

    expectRefused(
      await call('PATCH', schedule.id, { action: 'cancel' }),
      'Recurring payment is already cancelled',
    );
    expectRefused(
      await call('PATCH', schedule.id, { action: 'unpause' }),
      'Recurring payment is not paused',
    );
    expectRefused(
      await call('POST', schedule.id, {
        permitSignature: await sign(schedule.recurringPaymentPermit),
      }),
      'Recurring payment is already cancelled',
    );
    // The last schedule cancelled: the allowance goes back to 0.
    const last = (await call('PATCH', other.id, { action: 'cancel' })).json();
    expect(decodeFunctionData({ abi: erc20Abi, data: last.transactions[0].data }).args?.[1]).toBe(
      0n,
    );
  });

  it('refuses to cancel a completed schedule, and shows its payments’ count and dates', async () => {
    const start = new Date(t.clock.now().getTime() + DAY);
    const row = await activeSchedule(
      t.db,
      t.chains,
      {
        accountId: tenantA.accountId,
        payerKey: `0x${'4d'.repeat(32)}`,
        payee: wallet(1).address,
        startDate: start,
        totalPayments: 2,
        frequency: 'DAILY',
      },
      t.clock.now(),
    );
    for (const index of [1, 2]) {
      const due = new Date(start.getTime() + (index - 1) * DAY);
      const [claim] = (await claimDue({ db: t.db, chains: t.chains }, { now: due })).filter(
        (c) => c.schedule.id === row.id,
      );
      if (!claim) throw new Error(`index ${index} not claimed`);
      const txHash = `0x${String(index).padStart(64, '0')}` as Hex;
      await recordSent(t.db, {
        recurringPayoutId: row.id,
        index,
        claimToken: claim.claimToken,
        txHash,
        now: due,
      });
      await recordSuccess(t.db, { recurringPayoutId: row.id, index, txHash, now: due });
    }
    const read = (await call('GET', row.id)).json();
    expect(read).toMatchObject({
      status: 'completed',
      processedPayments: 2,
      nextPaymentDate: null,
      lastPaymentDate: new Date(start.getTime() + DAY).toISOString(),
    });
    expect(read.requests).toHaveLength(2);
    expectRefused(
      await call('PATCH', row.id, { action: 'cancel' }),
      'Cannot cancel a completed recurring payment',
    );
  });

  it('unpauses a schedule a failure paused: due again from the missed date, the reason gone', async () => {
    const start = new Date(t.clock.now().getTime() + DAY);
    const row = await insertSchedule(t.db, t.chains, {
      accountId: tenantA.accountId,
      payerKey: `0x${'5e'.repeat(32)}`,
      payee: wallet(1).address,
      startDate: start,
    });
    await activate(t.db, row, await signPermit(row, `0x${'5e'.repeat(32)}`), t.clock.now());
    const [claim] = (await claimDue({ db: t.db, chains: t.chains }, { now: start })).filter(
      (c) => c.schedule.id === row.id,
    );
    if (!claim) throw new Error('not claimed');
    await recordFailure(t.db, {
      recurringPayoutId: row.id,
      index: 1,
      claimToken: claim.claimToken,
      reason: 'insufficient allowance',
      now: start,
    });
    expect((await call('GET', row.id)).json()).toMatchObject({
      status: 'paused',
      failureCount: 1,
      failureReason: 'insufficient allowance',
      nextPaymentDate: null,
    });
    const res = await call('PATCH', row.id, { action: 'unpause' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: row.id,
      status: 'active',
      metadata: { processedPayments: 0, totalPayments: 3, nextPaymentDate: start.toISOString() },
    });
    expect((await call('GET', row.id)).json()).toMatchObject({
      status: 'active',
      failureCount: 1,
      failureReason: null,
    });
    expectRefused(
      await call('PATCH', row.id, { action: 'unpause' }),
      'Recurring payment is not paused',
    );
    expectRefused(
      await call('POST', row.id, {
        permitSignature: await signPermit(row, `0x${'5e'.repeat(32)}`),
      }),
      'Recurring payment is already active',
    );
  });
});
