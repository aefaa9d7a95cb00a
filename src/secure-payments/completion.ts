import { and, eq, type SQL, sql } from 'drizzle-orm';
import { inChunks } from '../db/chunks.ts';
import { type Database, queryRows } from '../db/client.ts';
import { requests, securePayments } from '../db/schema.ts';
import type { RequestRow } from '../requests/requests.ts';

/**
 * A link's own transitions on payments: completed once every one of its requests is paid,
 * pending again when a reorganisation takes a payment back. Run inside the transaction that
 * records (or drops) the payment.
 */

/** A link as the events of its payments name it. */
export interface PaidLink {
  readonly token: string;
  /**
   * Its requests may carry fee legs: its fee plan has fees, or it has no plan (a batch payout
   * link holds requests moved from payout links, with their own legs).
   */
  readonly charged: boolean;
}

/**
 * Completes the links of these requests whose every request is now paid; answers each link by
 * its id. One statement per ten thousand links: the update sees the request rows as this
 * transaction left them.
 */
export async function completeLinksIfPaid(
  tx: Database,
  counted: readonly RequestRow[],
  now: Date,
): Promise<ReadonlyMap<string, PaidLink>> {
  const links = await inChunks(linkIdsOf(counted), (chunk) =>
    queryRows<{ id: string; token: string; charged: boolean }>(
      tx,
      sql`with completed as (${completing(chunk, now)}) ${paidLinks(chunk)}`,
    ),
  );
  return new Map(links.map(({ id, token, charged }) => [id, { token, charged }]));
}

/**
 * The links of these requests, as their events name them, read ahead of the transaction that
 * completes them (`linksCompleted` does, in a statement of its own choosing): a token and a fee
 * plan never change.
 */
export async function paidLinksOf(
  db: Database,
  requested: readonly RequestRow[],
): Promise<ReadonlyMap<string, PaidLink>> {
  const links = await inChunks(linkIdsOf(requested), (chunk) =>
    queryRows<{ id: string; token: string; charged: boolean }>(db, paidLinks(chunk)),
  );
  return new Map(links.map(({ id, token, charged }) => [id, { token, charged }]));
}

/**
 * What completes the links of these requests whose every request is now paid, as one write
 * for another statement of the transaction to make (db/recordset.ts's `alongside` form); null
 * when none of them is a link's. It sees the request rows as the statements before it left
 * them. At most ten thousand requests' links.
 */
export function linksCompleted(counted: readonly RequestRow[], now: Date): SQL | null {
  const ids = linkIdsOf(counted);
  return ids.length === 0 ? null : sql`completed as (${completing(ids, now)})`;
}

const linkIdsOf = (counted: readonly RequestRow[]) => [
  ...new Set(counted.flatMap((request) => request.securePaymentId ?? [])),
];

const idArray = (ids: readonly string[]) =>
  sql`array[${sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  )}]`;

/** The update that completes those of the links whose every request is paid. */
const completing = (ids: readonly string[], now: Date) =>
  sql`update ${securePayments} as l
      set status = 'completed', completed_at = ${now.toISOString()}::timestamptz
      where l.id = any(${idArray(ids)}) and l.status = 'pending'
        and not exists (
          select 1 from ${requests} r
          where r.secure_payment_id = l.id and r.status <> 'paid')`;

const paidLinks = (ids: readonly string[]) =>
  sql`select id, token, coalesce(jsonb_array_length(fee_plan->'fees') > 0, true) as charged
      from ${securePayments} where id = any(${idArray(ids)})`;

/** Completes the request's link if every request of it is now paid; the link's token, if any. */
export async function completeLinkIfPaid(
  tx: Database,
  request: RequestRow,
  now: Date,
): Promise<string | null> {
  const links = await completeLinksIfPaid(tx, [request], now);
  return request.securePaymentId === null
    ? null
    : (links.get(request.securePaymentId)?.token ?? null);
}

/** A request no longer paid in full puts its completed link back to pending. */
export async function reopenLinkIfUnpaid(tx: Database, request: RequestRow): Promise<void> {
  if (request.status === 'paid' || request.securePaymentId === null) return;
  await tx
    .update(securePayments)
    .set({ status: 'pending', completedAt: null })
    .where(
      and(eq(securePayments.id, request.securePaymentId), eq(securePayments.status, 'completed')),
    );
}
