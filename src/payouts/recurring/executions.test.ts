import { and, eq } from 'drizzle-orm';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { createTenant, type Tenant } from '../../../test/fixtures.ts';
import { activeSchedule } from '../../../test/recurring.ts';
import {
  recurringExecutions,
  recurringPayouts,
  requests,
  webhookDeliveries,
  webhooks,
} from '../../db/schema.ts';
import {
  type Claim,
  claimDue,
  recordFailure,
  recordSent,
  recordSuccess,
  releaseClaim,
} from './executions.ts';
import { cancel, unpause } from './store.ts';

/**
 * The executor's side of the storage, on whichever database the run uses (PGlite, or Postgres
 * with DATABASE_URL): claims, leases, recovery after a lost executor, success, failure and
 * completion. Time is the test clock; no chain is involved (the trigger is the next step's).
 */

const PAYER_KEY: Hex = `0x${'3c'.repeat(32)}`;
const PAYEE = '0x00000000000000000000000000000000000000b0';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const tx = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db, 'Payroll');
});
afterAll(() => t.close());

/** A fresh active schedule starting `inMs` from the clock, alone among due schedules. */
async function schedule(options: { inMs?: number; totalPayments?: number; start?: Date } = {}) {
  // Earlier tests' schedules must not compete for the claims: cancel them all.
  await t.db
    .update(recurringPayouts)
    .set({ status: 'cancelled', nextPaymentAt: null })
    .where(eq(recurringPayouts.accountId, tenant.accountId));
  const startDate = options.start ?? new Date(t.clock.now().getTime() + (options.inMs ?? HOUR));
  return activeSchedule(
    t.db,
    t.chains,
    {
      accountId: tenant.accountId,
      clientIdId: null,
      payerKey: PAYER_KEY,
      payee: PAYEE,
      startDate,
      totalPayments: options.totalPayments ?? 3,
    },
    t.clock.now(),
  );
}

const claim = (now = t.clock.now(), leaseMs?: number) =>
  claimDue({ db: t.db, chains: t.chains }, { now, ...(leaseMs !== undefined && { leaseMs }) });

async function only(claims: Claim[]): Promise<Claim> {
  expect(claims).toHaveLength(1);
  return claims[0] as Claim;
}

async function scheduleRow(id: string) {
  const [row] = await t.db.select().from(recurringPayouts).where(eq(recurringPayouts.id, id));
  if (!row) throw new Error('schedule gone');
  return row;
}

describe('claiming due indexes', () => {
  it('claims nothing before the start date and index 1, with its request, from it', async () => {
    const row = await schedule({ inMs: HOUR });
    expect(await claim()).toEqual([]);
    const claimed = await only(await claim(new Date(row.startDate.getTime())));
    expect(claimed.index).toBe(1);
    expect(claimed.schedule.id).toBe(row.id);
    expect(claimed.previousTxHash).toBeNull();
    expect(claimed.permit.message.subscriber).toBe(row.payer);
    expect(claimed.signature).toBe(row.signature);
    // Index 1's request is the one the creation wrote.
    const [first] = await t.db
      .select()
      .from(recurringExecutions)
      .where(eq(recurringExecutions.recurringPayoutId, row.id));
    expect(first?.requestRowId).toBe(claimed.request.id);
    expect(first?.state).toBe('claimed');
  });

  it('never hands one index to two claimers at once, and hands it over when the lease ran out', async () => {
    const row = await schedule({ inMs: 0 });
    const now = t.clock.now();
    const rounds = await Promise.all([claim(now, 60_000), claim(now, 60_000), claim(now, 60_000)]);
    const first = await only(rounds.flat());
    expect(await claim(new Date(now.getTime() + 59_000))).toEqual([]);
    // A stale claimer can neither record a transaction nor give the index back.
    const later = new Date(now.getTime() + 61_000);
    const second = await only(await claim(later));
    expect(second.index).toBe(first.index);
    expect(second.request.id).toBe(first.request.id);
    const stale = { recurringPayoutId: row.id, index: 1, claimToken: first.claimToken };
    expect(await recordSent(t.db, { ...stale, txHash: tx(1), now: later })).toBe(false);
    expect(await releaseClaim(t.db, stale)).toBe(false);
    expect(await recordFailure(t.db, { ...stale, reason: 'stale', now: later })).toBe(false);
    expect((await scheduleRow(row.id)).status).toBe('active');
  });

  it('gives the next executor the hash a dead one recorded, and counts the index once', async () => {
    const row = await schedule({ inMs: 0 });
    const now = t.clock.now();
    const dead = await only(await claim(now, 1_000));
    const key = { recurringPayoutId: row.id, index: 1 };
    expect(
      await recordSent(t.db, { ...key, claimToken: dead.claimToken, txHash: tx(7), now }),
    ).toBe(true);
    // Sent, lease live: nobody else may touch it.
    expect(await claim(new Date(now.getTime() + 500))).toEqual([]);
    const recovery = await only(await claim(new Date(now.getTime() + 2_000)));
    expect(recovery.previousTxHash).toBe(tx(7));
    expect(recovery.index).toBe(1);
    // The receipt says mined: success, recorded once however many learn it.
    expect(await recordSuccess(t.db, { ...key, txHash: tx(7), now })).toBe(true);
    expect(await recordSuccess(t.db, { ...key, txHash: tx(7), now })).toBe(false);
    const after = await scheduleRow(row.id);
    expect(after.processedPayments).toBe(1);
    expect(after.lastPaymentAt).toEqual(now);
  });

  it('releases an unsent claim so the index is claimable at once', async () => {
    const row = await schedule({ inMs: 0 });
    const first = await only(await claim());
    expect(
      await releaseClaim(t.db, {
        recurringPayoutId: row.id,
        index: 1,
        claimToken: first.claimToken,
      }),
    ).toBe(true);
    const again = await only(await claim());
    expect(again.index).toBe(1);
    const [execution] = await t.db
      .select()
      .from(recurringExecutions)
      .where(eq(recurringExecutions.recurringPayoutId, row.id));
    expect(execution?.attempts).toBe(2);
  });
});

describe('what an executor asks for', () => {
  it('claims only the networks it serves', async () => {
    const row = await schedule({ inMs: 0 });
    const now = t.clock.now();
    expect(await claimDue({ db: t.db, chains: t.chains }, { now, networks: ['mainnet'] })).toEqual(
      [],
    );
    const claimed = await only(
      await claimDue({ db: t.db, chains: t.chains }, { now, networks: ['mainnet', 'base'] }),
    );
    expect(claimed.schedule.id).toBe(row.id);
  });

  it('counts an index found paid without its transaction, keeping the hash it had', async () => {
    const row = await schedule({ inMs: 0 });
    const now = t.clock.now();
    const claimed = await only(await claim(now));
    const key = { recurringPayoutId: row.id, index: 1 };
    await recordSent(t.db, { ...key, claimToken: claimed.claimToken, txHash: tx(9), now });
    expect(await recordSuccess(t.db, { ...key, txHash: null, now })).toBe(true);
    const [execution] = await t.db
      .select()
      .from(recurringExecutions)
      .where(eq(recurringExecutions.recurringPayoutId, row.id));
    expect(execution).toMatchObject({ state: 'succeeded', txHash: tx(9) });
    expect((await scheduleRow(row.id)).processedPayments).toBe(1);
  });
});

describe('success, failure and completion', () => {
  it('pays on the calendar dates (31 January, then the end of February), each index with its own request, and completes on the last', async () => {
    t.clock.set(new Date('2027-01-30T09:00:00Z'));
    const start = new Date('2027-01-31T09:00:00Z');
    const row = await schedule({ start, totalPayments: 3 });
    const dates = [
      '2027-01-31T09:00:00.000Z',
      '2027-02-28T09:00:00.000Z',
      '2027-03-31T09:00:00.000Z',
    ];
    const references = new Set<string>();
    for (const [i, date] of dates.entries()) {
      const due = new Date(date);
      expect(await claim(new Date(due.getTime() - 1))).toEqual([]);
      const claimed = await only(await claim(due));
      expect(claimed.index).toBe(i + 1);
      references.add(claimed.request.paymentReference);
      const key = { recurringPayoutId: row.id, index: i + 1 };
      expect(
        await recordSent(t.db, { ...key, claimToken: claimed.claimToken, txHash: tx(i), now: due }),
      ).toBe(true);
      expect(await recordSuccess(t.db, { ...key, txHash: tx(i), now: due })).toBe(true);
      const after = await scheduleRow(row.id);
      expect(after.processedPayments).toBe(i + 1);
      expect(after.nextPaymentAt?.toISOString() ?? null).toBe(dates[i + 1] ?? null);
    }
    expect(references.size).toBe(3);
    const done = await scheduleRow(row.id);
    expect(done.status).toBe('completed');
    expect(done.completedAt).not.toBeNull();
    expect(await claim(new Date('2028-01-01T00:00:00Z'))).toEqual([]);
    const rows = await t.db
      .select({ state: recurringExecutions.state, payer: requests.payer })
      .from(recurringExecutions)
      .innerJoin(requests, eq(requests.id, recurringExecutions.requestRowId))
      .where(eq(recurringExecutions.recurringPayoutId, row.id));
    expect(rows.map((r) => r.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(new Set(rows.map((r) => r.payer))).toEqual(new Set([row.payer]));
  });

  it('pauses on failure with the reason and queues payment.failed; unpause catches the same index up', async () => {
    const [hook] = await t.db
      .insert(webhooks)
      .values({
        id: 'whk_recurring_test',
        accountId: tenant.accountId,
        url: 'https://hooks.example/recurring',
        secretSealed: 'sealed',
      })
      .returning();
    const row = await schedule({ inMs: 0 });
    const first = await only(await claim());
    const now = t.clock.now();
    const sent = { recurringPayoutId: row.id, index: 1, claimToken: first.claimToken };
    expect(await recordSent(t.db, { ...sent, txHash: tx(3), now })).toBe(true);
    const failure = {
      recurringPayoutId: row.id,
      index: 1,
      claimToken: first.claimToken,
      reason: 'ERC20: insufficient allowance',
      now,
    };
    expect(await recordFailure(t.db, failure)).toBe(true);
    const paused = await scheduleRow(row.id);
    expect(paused).toMatchObject({
      status: 'paused',
      failureCount: 1,
      failureReason: 'ERC20: insufficient allowance',
      nextPaymentAt: null,
    });
    expect(await claim(new Date(now.getTime() + 365 * DAY))).toEqual([]);
    const deliveries = await t.db
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.webhookId, hook?.id ?? ''),
          eq(webhookDeliveries.event, 'payment.failed'),
        ),
      );
    expect(deliveries).toHaveLength(1);
    expect(JSON.parse(deliveries[0]?.body ?? '{}')).toEqual({
      event: 'payment.failed',
      requestId: first.request.requestId,
      requestID: first.request.requestId,
      paymentReference: `0x${first.request.paymentReference}`,
      timestamp: now.toISOString(),
      subStatus: 'failed',
      paymentProcessor: 'request-network',
      recurringPaymentId: row.id,
      paymentIndex: 1,
      failureReason: 'ERC20: insufficient allowance',
    });

    t.clock.advance(40 * DAY);
    const resumed = await unpause(t.db, paused, t.clock.now());
    expect(resumed?.status).toBe('active');
    expect(resumed?.failureReason).toBeNull();
    const retry = await only(await claim());
    expect(retry.index).toBe(1);
    expect(retry.request.id).toBe(first.request.id);
    // The reverted transaction is the recorded failure, not one to look for.
    expect(retry.previousTxHash).toBeNull();
  });

  it('counts a payment mined after a cancellation but keeps the schedule cancelled', async () => {
    const row = await schedule({ inMs: 0 });
    const claimed = await only(await claim());
    const now = t.clock.now();
    await recordSent(t.db, {
      recurringPayoutId: row.id,
      index: 1,
      claimToken: claimed.claimToken,
      txHash: tx(9),
      now,
    });
    await cancel(t.db, row.id, now);
    expect(
      await recordSuccess(t.db, { recurringPayoutId: row.id, index: 1, txHash: tx(9), now }),
    ).toBe(true);
    const after = await scheduleRow(row.id);
    expect(after).toMatchObject({ status: 'cancelled', processedPayments: 1, nextPaymentAt: null });
    expect(await claim(new Date(now.getTime() + 400 * DAY))).toEqual([]);
  });
});
