import { and, eq, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.ts';
import { requests, securePayments } from '../db/schema.ts';
import type { RequestRow } from '../requests/requests.ts';

/**
 * A link's own transitions on payments: completed once every one of its requests is paid,
 * pending again when a reorganisation takes a payment back. Run inside the transaction that
 * records (or drops) the payment.
 */

/**
 * Completes the request's link if every request of it is now paid; the link's token, if any.
 * One statement: the update sees the request rows as this transaction left them.
 */
export async function completeLinkIfPaid(
  tx: Database,
  request: RequestRow,
  now: Date,
): Promise<string | null> {
  const linkId = request.securePaymentId;
  if (linkId === null) return null;
  const [link] = await queryRows<{ token: string }>(
    tx,
    sql`with completed as (
          update ${securePayments}
          set status = 'completed', completed_at = ${now.toISOString()}::timestamptz
          where id = ${linkId} and status = 'pending'
            and not exists (
              select 1 from ${requests}
              where secure_payment_id = ${linkId} and status <> 'paid'))
        select token from ${securePayments} where id = ${linkId}`,
  );
  return link?.token ?? null;
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
