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

/** A payment counted toward a request: base units of its invoice currency. */
export interface CountedPayment {
  readonly requestRowId: string;
  readonly amount: bigint;
}

/** Distinct requests one UPDATE counts payments for (two parameters each). */
const UPDATE_REQUESTS = 1_000;

/**
 * Counts payments toward their requests; paid in full (or over) makes a request paid, in full
 * meaning the expected amount less the payee-borne fees its fee legs carry. One UPDATE per
 * thousand requests, whatever the number of payments: it takes the rows' locks and adds each
 * request's sum to the total it reads under them. Answers, for each payment in order, its
 * request as that payment left it (null for a request that is gone): the totals and statuses
 * between a request's payments of one call are those one UPDATE a payment would have left.
 */
export async function applyPayments(
  tx: Database,
  counted: readonly CountedPayment[],
  now: Date,
): Promise<(RequestRow | null)[]> {
  const sums = new Map<string, bigint>();
  for (const { requestRowId, amount } of counted) {
    sums.set(requestRowId, (sums.get(requestRowId) ?? 0n) + amount);
  }
  const after = new Map<string, RequestRow>();
  const ids = [...sums.keys()];
  for (let i = 0; i < ids.length; i += UPDATE_REQUESTS) {
    const chunk = ids.slice(i, i + UPDATE_REQUESTS);
    const added = sql`(case ${requests.id} ${sql.join(
      chunk.map((id) => sql`when ${id}::uuid then ${String(sums.get(id))}::numeric`),
      sql` `,
    )} end)`;
    const total = sql`${requests.totalAmountPaid} + ${added}`;
    const paid = sql`${total} + ${requests.payeeBorneFees} >= ${requests.expectedAmount}`;
    const rows = await tx
      .update(requests)
      .set({
        totalAmountPaid: total,
        status: sql`case when ${paid} then 'paid' else 'partially_paid' end`,
        paidAt: sql`case when ${paid} then coalesce(${requests.paidAt}, ${now.toISOString()}::timestamptz) else ${requests.paidAt} end`,
      })
      .where(inArray(requests.id, chunk))
      .returning();
    for (const row of rows) after.set(row.id, row);
  }
  // Walks each request's payments in order, from the total before the first of them.
  const running = new Map(
    [...after].map(([id, row]) => [id, row.totalAmountPaid - (sums.get(id) ?? 0n)]),
  );
  return counted.map(({ requestRowId, amount }) => {
    const row = after.get(requestRowId);
    if (row === undefined) return null;
    const total = (running.get(requestRowId) ?? 0n) + amount;
    running.set(requestRowId, total);
    const paid = total + row.payeeBorneFees >= row.expectedAmount;
    return {
      ...row,
      totalAmountPaid: total,
      status: paid ? 'paid' : 'partially_paid',
      // Paid by a later payment of the call: not yet paid at this one.
      paidAt: paid ? row.paidAt : row.status === 'paid' ? null : row.paidAt,
    };
  });
}

/** Counts one payment (`applyPayments` of one). */
export async function applyPayment(
  tx: Database,
  requestRowId: string,
  amount: bigint,
  now: Date,
): Promise<RequestRow | null> {
  const [request] = await applyPayments(tx, [{ requestRowId, amount }], now);
  return request ?? null;
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
