import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { requests } from '../db/schema.ts';
import type { RequestRow } from './requests.ts';

/**
 * How payments move a request: the total paid and the status change together in one UPDATE,
 * which holds the request's row lock until the caller's transaction (the one that records or
 * drops the payment) ends, so totals accumulate correctly across payments of one scan.
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

/**
 * Counts a payment of `amount` base units; paid in full (or over) makes the request paid, in
 * full meaning the expected amount less the payee-borne fees its fee legs carry. One
 * UPDATE: it takes the row lock and reads the total it adds to under it.
 */
export async function applyPayment(
  tx: Database,
  requestRowId: string,
  amount: bigint,
  now: Date,
): Promise<RequestRow | null> {
  const total = sql`${requests.totalAmountPaid} + ${String(amount)}::numeric`;
  const paid = sql`${total} + ${requests.payeeBorneFees} >= ${requests.expectedAmount}`;
  const [updated] = await tx
    .update(requests)
    .set({
      totalAmountPaid: total,
      status: sql`case when ${paid} then 'paid' else 'partially_paid' end`,
      paidAt: sql`case when ${paid} then coalesce(${requests.paidAt}, ${now.toISOString()}::timestamptz) else ${requests.paidAt} end`,
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
  const total = sql`${requests.totalAmountPaid} - ${String(amount)}::numeric`;
  const paid = sql`${total} + ${requests.payeeBorneFees} >= ${requests.expectedAmount}`;
  const [updated] = await tx
    .update(requests)
    .set({
      totalAmountPaid: total,
      status: sql`case when ${paid} then 'paid' when ${total} > 0 then 'partially_paid' else 'pending' end`,
      paidAt: sql`case when ${paid} then ${requests.paidAt} end`,
    })
    .where(eq(requests.id, requestRowId))
    .returning();
  return updated ?? null;
}
