import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { requests } from '../db/schema.ts';
import type { RequestRow } from './requests.ts';

/**
 * How payments move a request: the total paid and the status change together, under the
 * request's row lock, inside the caller's transaction (the one that records or drops the
 * payment), so totals accumulate correctly across payments of one scan.
 */

/** Requests of a network whose payment-reference topics are among `topics`. */
export async function requestsByReferenceTopics(
  db: Database,
  network: string,
  topics: readonly string[],
): Promise<RequestRow[]> {
  if (topics.length === 0) return [];
  return db
    .select()
    .from(requests)
    .where(and(eq(requests.network, network), inArray(requests.referenceTopic, [...topics])));
}

/** Counts a payment of `amount` base units; paid in full (or over) makes the request paid. */
export async function applyPayment(
  tx: Database,
  requestRowId: string,
  amount: bigint,
  now: Date,
): Promise<RequestRow | null> {
  const current = await lockRequest(tx, requestRowId);
  if (!current) return null;
  const total = current.totalAmountPaid + amount;
  const paid = total >= current.expectedAmount;
  const [updated] = await tx
    .update(requests)
    .set({
      totalAmountPaid: total,
      status: paid ? 'paid' : 'partially_paid',
      ...(paid && current.paidAt === null && { paidAt: now }),
    })
    .where(eq(requests.id, requestRowId))
    .returning();
  return updated ?? null;
}

/** Takes back a payment a reorganisation dropped: the request is owed that much again. */
export async function reversePayment(
  tx: Database,
  requestRowId: string,
  amount: bigint,
): Promise<RequestRow | null> {
  const current = await lockRequest(tx, requestRowId);
  if (!current) return null;
  const total = current.totalAmountPaid - amount;
  const paid = total >= current.expectedAmount;
  const [updated] = await tx
    .update(requests)
    .set({
      totalAmountPaid: total,
      status: paid ? 'paid' : total > 0n ? 'partially_paid' : 'pending',
      ...(!paid && { paidAt: null }),
    })
    .where(eq(requests.id, requestRowId))
    .returning();
  return updated ?? null;
}

async function lockRequest(tx: Database, requestRowId: string): Promise<RequestRow | null> {
  const [row] = await tx.select().from(requests).where(eq(requests.id, requestRowId)).for('update');
  return row ?? null;
}
