import { type Address, decodeFunctionData, getAddress, type Hex } from 'viem';
import { beforeEach, describe, expect, it } from 'vitest';
import { sendAll } from '../../../test/chain.ts';
import { activeSchedule, insertSchedule, signPermit } from '../../../test/recurring.ts';
import { call, created, DAY, expectRefused, sign } from '../../../test/recurring-http.ts';
import { local, setupRequestsApp, t, tenantA, wallet } from '../../../test/requests.ts';
import { recurringPayouts } from '../../db/schema.ts';
import { erc20Abi } from '../../payments/abis.ts';
import { evmTransaction } from '../../payments/transactions.ts';
import { claimDue, recordFailure, recordSent, recordSuccess } from './executions.ts';
import { activate } from './store.ts';

/**
 * `PATCH /v2/payouts/recurring/{id}` on the real app: cancel (with the allowance decrease) and
 * unpause, the exact 400 texts of api-facts §4.2, and what `GET` shows after executions the
 * executor's data layer recorded.
 */

setupRequestsApp();

// The allowance a cancellation leaves counts the payer's other schedules: only this test's.
beforeEach(async () => {
  await t.db.update(recurringPayouts).set({ status: 'cancelled', nextPaymentAt: null });
});

/** The payer's (wallet 2's) allowance of the recurring proxy, set on the local chain. */
async function allow(proxy: Address, amount: bigint) {
  await sendAll(local.chain, wallet(2), [
    evmTransaction(local.chain.addresses.usdc, erc20Abi, 'approve', [proxy, amount], 8453),
  ]);
}

describe('PATCH', () => {
  it('refuses an unknown action, naming it', async () => {
    const schedule = await created();
    expectRefused(await call('PATCH', schedule.id, { action: 'pause' }), 'Invalid action: pause');
    expectRefused(await call('PATCH', schedule.id, { action: 'CANCEL' }), 'Invalid action: CANCEL');
  });

  it('cancels, lowering the allowance to what the payer’s other schedules still need', async () => {
    const other = await created();
    const schedule = await created();
    await allow(other.recurringPaymentPermit.domain.verifyingContract, 30_000_000n);
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

  it('offers no approval on cancel when the allowance is already no more than the others need', async () => {
    const other = await created();
    const schedule = await created();
    const proxy = other.recurringPaymentPermit.domain.verifyingContract;
    // The other schedule needs 15 USDC; the payer allows 10: approving 15 would raise it.
    await allow(proxy, 10_000_000n);
    const res = await call('PATCH', schedule.id, { action: 'cancel' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'cancelled', transactions: [] });
    await allow(proxy, 0n);
    const last = await call('PATCH', other.id, { action: 'cancel' });
    expect(last.json()).toMatchObject({ status: 'cancelled', transactions: [] });
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
