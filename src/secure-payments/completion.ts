import { and, eq, sql } from 'drizzle-orm';
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
  const linkIds = [...new Set(counted.flatMap((request) => request.securePaymentId ?? []))];
  const links = await inChunks(linkIds, (chunk) => {
    const ids = sql`array[${sql.join(
      chunk.map((id) => sql`${id}::uuid`),
      sql`, `,
    )}]`;
    return queryRows<{ id: string; token: string; charged: boolean }>(
      tx,
      sql`with completed as (
          update ${securePayments} as l
          set status = 'completed', completed_at = ${now.toISOString()}::timestamptz
          where l.id = any(${ids}) and l.status = 'pending'
            and not exists (
              select 1 from ${requests} r
              where r.secure_payment_id = l.id and r.status <> 'paid'))
        select id, token,
               coalesce(jsonb_array_length(fee_plan->'fees') > 0, true) as charged
        from ${securePayments} where id = any(${ids})`,
    );
  });
  return new Map(links.map(({ id, token, charged }) => [id, { token, charged }]));
}

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
