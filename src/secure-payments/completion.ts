import { and, eq, ne } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { requests, securePayments } from '../db/schema.ts';
import type { RequestRow } from '../requests/requests.ts';

/**
 * A link's own transitions on payments: completed once every one of its requests is paid,
 * pending again when a reorganisation takes a payment back. Run inside the transaction that
 * records (or drops) the payment.
 */

/** Completes the request's link if every request of it is now paid; the link's token, if any. */
export async function completeLinkIfPaid(
  tx: Database,
  request: RequestRow,
  now: Date,
): Promise<string | null> {
  if (request.securePaymentId === null) return null;
  const [unpaid] = await tx
    .select({ id: requests.id })
    .from(requests)
    .where(and(eq(requests.securePaymentId, request.securePaymentId), ne(requests.status, 'paid')))
    .limit(1);
  if (!unpaid) {
    await tx
      .update(securePayments)
      .set({ status: 'completed', completedAt: now })
      .where(
        and(eq(securePayments.id, request.securePaymentId), eq(securePayments.status, 'pending')),
      );
  }
  const [link] = await tx
    .select({ token: securePayments.token })
    .from(securePayments)
    .where(eq(securePayments.id, request.securePaymentId));
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
