import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Hex } from 'viem';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { recurringExecutions, recurringPayouts, requests } from '../../db/schema.ts';
import type { RequestRow } from '../../requests/requests.ts';
import { enqueueFailed } from './failed-event.ts';
import type { SchedulePermitTypedData } from './permit.ts';
import {
  dueDateOf,
  insertExecution,
  permitOf,
  type RecurringPayoutRow,
  requestFor,
} from './store.ts';

/**
 * What the executor of recurring payouts does to the database, each step one short
 * transaction and never one open across a chain call:
 *
 * 1. `claimDue` takes due schedules (`active`, `nextPaymentAt` passed) with `FOR UPDATE SKIP
 *    LOCKED` and leases the execution of each one's next index (`processedPayments + 1`),
 *    creating its request first when the index has none. Two executors never hold one index:
 *    the schedule row is locked while the lease is taken, and a live lease keeps the schedule
 *    out of every other claim.
 * 2. The executor signs `triggerRecurringPayment(permit, signature, index, reference)` and
 *    calls `recordSent` with the signed transaction's hash **before** broadcasting it. If it
 *    dies after that, the next claim (once the lease runs out) hands over `previousTxHash`:
 *    look that transaction up first. The contract refuses a second payment of an index
 *    (`__AlreadyPaid`), so an executor that sends again anyway cannot pay twice; it must treat
 *    that revert as the index being paid and record it with `recordSuccess`.
 * 3. `recordSuccess` (mined, or found paid) counts the index, moves the schedule to its next
 *    date, and completes it on the last index. It is idempotent and needs no lease: success is
 *    a fact of the chain, whoever learns it.
 * 4. `recordFailure` (revert, allowance, balance) pauses the schedule with the reason and
 *    queues `payment.failed`; `unpause` makes the index claimable again, with the same request.
 *    `releaseClaim` gives an index back without a verdict (the RPC was down before sending).
 */

/** How long a claim holds an index by default: longer than a send and its receipt take. */
export const CLAIM_LEASE_MS = 5 * 60_000;

export interface Claim {
  readonly schedule: RecurringPayoutRow;
  /** 1-based, as `triggerRecurringPayment` takes it. */
  readonly index: number;
  readonly claimToken: string;
  /** This index's request: its `paymentReference` is the trigger's reference. */
  readonly request: RequestRow;
  readonly permit: SchedulePermitTypedData;
  readonly signature: Hex;
  /**
   * The transaction an earlier executor recorded for this index before its lease ran out, if
   * any: it may have been mined.
   */
  readonly previousTxHash: Hex | null;
}

/** Leases up to `limit` due indexes (oldest date first), each of a different schedule. */
export async function claimDue(
  deps: { readonly db: Database; readonly chains: ChainRegistry },
  options: {
    readonly now: Date;
    readonly limit?: number;
    readonly leaseMs?: number;
    /** Only schedules on these networks (an executor serves the networks it can send on). */
    readonly networks?: readonly string[];
  },
): Promise<Claim[]> {
  const { now } = options;
  const leaseUntil = new Date(now.getTime() + (options.leaseMs ?? CLAIM_LEASE_MS));
  return deps.db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(recurringPayouts)
      .where(
        and(
          eq(recurringPayouts.status, 'active'),
          lte(recurringPayouts.nextPaymentAt, now),
          options.networks && inArray(recurringPayouts.network, [...options.networks]),
          sql`not exists (select 1 from ${recurringExecutions} e
                where e.recurring_payout_id = ${recurringPayouts.id}
                  and e.payment_index = ${recurringPayouts.processedPayments} + 1
                  and e.state in ('claimed', 'sent')
                  and e.claimed_until > ${now.toISOString()}::timestamptz)`,
        ),
      )
      .orderBy(asc(recurringPayouts.nextPaymentAt))
      .limit(options.limit ?? 10)
      .for('update', { skipLocked: true });
    const claims: Claim[] = [];
    for (const schedule of due) {
      if (schedule.signature === null) continue; // active implies signed; never trigger unsigned
      const index = schedule.processedPayments + 1;
      const [existing] = await tx
        .select()
        .from(recurringExecutions)
        .where(executionKey(schedule.id, index));
      if (existing?.state === 'succeeded') continue; // counted already: cannot be, see recordSuccess
      // Read again now that the schedule is locked: the select above judged the lease on the
      // snapshot it started with, and a claimer that committed since (it changes the execution,
      // not the schedule row, so the lock does not re-check) would otherwise be claimed twice.
      if (
        (existing?.state === 'claimed' || existing?.state === 'sent') &&
        existing.claimedUntil !== null &&
        existing.claimedUntil > now
      ) {
        continue;
      }
      const requestRowId =
        existing?.requestRowId ??
        (await insertExecution(tx, schedule, index, requestFor(deps.chains, schedule))).id;
      // A hash left by an executor that lost its lease may still be mined: it is handed on.
      // One whose failure was recorded is not (its revert is the failure).
      const previousTxHash =
        existing?.state === 'claimed' || existing?.state === 'sent'
          ? ((existing.txHash as Hex | null) ?? null)
          : null;
      const claimToken = randomUUID();
      await tx
        .update(recurringExecutions)
        .set({
          state: 'claimed',
          claimToken,
          claimedUntil: leaseUntil,
          attempts: sql`${recurringExecutions.attempts} + 1`,
          error: null,
          txHash: previousTxHash,
          ...(previousTxHash === null && { sentAt: null }),
        })
        .where(executionKey(schedule.id, index));
      const [request] = await tx.select().from(requests).where(eq(requests.id, requestRowId));
      if (!request) throw new Error(`execution ${schedule.id}#${index} has no request`);
      claims.push({
        schedule,
        index,
        claimToken,
        request,
        permit: permitOf(schedule),
        signature: schedule.signature as Hex,
        previousTxHash,
      });
    }
    return claims;
  });
}

/**
 * The signed trigger's hash, recorded before it is broadcast. False when the claim was lost
 * (its lease ran out and another executor took the index): then do not broadcast.
 */
export async function recordSent(
  db: Database,
  input: { recurringPayoutId: string; index: number; claimToken: string; txHash: Hex; now: Date },
): Promise<boolean> {
  const updated = await db
    .update(recurringExecutions)
    .set({ state: 'sent', txHash: input.txHash, sentAt: input.now })
    .where(
      and(
        executionKey(input.recurringPayoutId, input.index),
        eq(recurringExecutions.claimToken, input.claimToken),
        eq(recurringExecutions.state, 'claimed'),
      ),
    )
    .returning({ id: recurringExecutions.id });
  return updated.length > 0;
}

/**
 * The index is paid: counted once (false when it already was), the schedule moved to its next
 * index's date, or `completed` after the last. A schedule cancelled meanwhile stays cancelled,
 * and one paused stays paused, but the payment counts. `txHash` null: the chain says the index
 * is paid but not by which transaction (the hash recorded last stays; detection records the
 * payment itself from its event).
 */
export async function recordSuccess(
  db: Database,
  input: { recurringPayoutId: string; index: number; txHash: Hex | null; now: Date },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [schedule] = await tx
      .select()
      .from(recurringPayouts)
      .where(eq(recurringPayouts.id, input.recurringPayoutId))
      .for('update');
    if (!schedule) return false;
    const executed = await tx
      .update(recurringExecutions)
      .set({
        state: 'succeeded',
        txHash: input.txHash ?? sql`${recurringExecutions.txHash}`,
        executedAt: input.now,
        claimToken: null,
        claimedUntil: null,
        error: null,
      })
      .where(
        and(
          executionKey(schedule.id, input.index),
          inArray(recurringExecutions.state, ['pending', 'claimed', 'sent', 'failed']),
        ),
      )
      .returning({ id: recurringExecutions.id });
    if (executed.length === 0) return false;
    const processed = Math.max(schedule.processedPayments, input.index);
    const last = processed >= schedule.totalPayments;
    const status = last && schedule.status !== 'cancelled' ? 'completed' : schedule.status;
    await tx
      .update(recurringPayouts)
      .set({
        processedPayments: processed,
        lastPaymentAt: input.now,
        status,
        updatedAt: input.now,
        nextPaymentAt: status === 'active' ? dueDateOf(schedule, processed + 1) : null,
        ...(status === 'completed' && { completedAt: input.now }),
      })
      .where(eq(recurringPayouts.id, schedule.id));
    return true;
  });
}

/**
 * The index failed: the schedule pauses (unless it was cancelled meanwhile) with `reason`, and
 * `payment.failed` goes to the account's webhooks in the same transaction. False, and nothing
 * written, when the claim was lost.
 */
export async function recordFailure(
  db: Database,
  input: {
    recurringPayoutId: string;
    index: number;
    claimToken: string;
    reason: string;
    now: Date;
  },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [schedule] = await tx
      .select()
      .from(recurringPayouts)
      .where(eq(recurringPayouts.id, input.recurringPayoutId))
      .for('update');
    if (!schedule) return false;
    const [execution] = await tx
      .update(recurringExecutions)
      .set({ state: 'failed', error: input.reason, claimToken: null, claimedUntil: null })
      .where(
        and(
          executionKey(schedule.id, input.index),
          eq(recurringExecutions.claimToken, input.claimToken),
          inArray(recurringExecutions.state, ['claimed', 'sent']),
        ),
      )
      .returning();
    if (!execution) return false;
    const pauses = schedule.status === 'active';
    await tx
      .update(recurringPayouts)
      .set({
        failureCount: sql`${recurringPayouts.failureCount} + 1`,
        failureReason: input.reason,
        updatedAt: input.now,
        ...(pauses && { status: 'paused' as const, nextPaymentAt: null }),
      })
      .where(eq(recurringPayouts.id, schedule.id));
    await enqueueFailed(tx, schedule, execution, input.reason, input.now);
    return true;
  });
}

/** Gives a claimed index back unjudged (nothing was broadcast): claimable again at once. */
export async function releaseClaim(
  db: Database,
  input: { recurringPayoutId: string; index: number; claimToken: string },
): Promise<boolean> {
  const released = await db
    .update(recurringExecutions)
    .set({ state: 'pending', claimToken: null, claimedUntil: null })
    .where(
      and(
        executionKey(input.recurringPayoutId, input.index),
        eq(recurringExecutions.claimToken, input.claimToken),
        eq(recurringExecutions.state, 'claimed'),
      ),
    )
    .returning({ id: recurringExecutions.id });
  return released.length > 0;
}

function executionKey(recurringPayoutId: string, index: number) {
  return and(
    eq(recurringExecutions.recurringPayoutId, recurringPayoutId),
    eq(recurringExecutions.paymentIndex, index),
  );
}
