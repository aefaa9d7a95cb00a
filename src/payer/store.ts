import { and, asc, eq, isNull } from 'drizzle-orm';
import { AppError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { type PaymentDetailStatus, payers, paymentDetails } from '../db/schema/payers.ts';

/** The payer rows of one account, by the integrator's `clientUserId`; erased ones are gone. */

export type PayerRow = typeof payers.$inferSelect;
export type PaymentDetailRow = typeof paymentDetails.$inferSelect;

export async function findPayer(
  db: Database,
  accountId: string,
  clientUserId: string,
): Promise<PayerRow | null> {
  const [row] = await db
    .select()
    .from(payers)
    .where(and(eq(payers.accountId, accountId), eq(payers.clientUserId, clientUserId)));
  return row ?? null;
}

/** `Payer with client user ID <id> not found` (decisions.md) for an unknown or erased payer. */
export async function livePayer(
  db: Database,
  accountId: string,
  clientUserId: string,
): Promise<PayerRow> {
  const row = await findPayer(db, accountId, clientUserId);
  if (row === null || row.erasedAt !== null) {
    throw new AppError('payer_not_found', `Payer with client user ID ${clientUserId} not found`);
  }
  return row;
}

/** The payment-details operations' 404: `User with ID <id> not found`. */
export async function livePayerForDetails(
  db: Database,
  accountId: string,
  clientUserId: string,
): Promise<PayerRow> {
  const row = await findPayer(db, accountId, clientUserId);
  if (row === null || row.erasedAt !== null) {
    throw new AppError('payer_user_not_found', `User with ID ${clientUserId} not found`);
  }
  return row;
}

export function livePaymentDetails(db: Database, payerId: string): Promise<PaymentDetailRow[]> {
  return db
    .select()
    .from(paymentDetails)
    .where(and(eq(paymentDetails.payerId, payerId), isNull(paymentDetails.erasedAt)))
    .orderBy(asc(paymentDetails.createdAt), asc(paymentDetails.id));
}

/** The id of the payer's live details stored for the provider's `providerAccountId`, or null. */
export async function detailsOfAccount(
  db: Database,
  payerId: string,
  providerAccountId: string,
): Promise<string | null> {
  const [row] = await db
    .select({ id: paymentDetails.id })
    .from(paymentDetails)
    .where(
      and(
        eq(paymentDetails.payerId, payerId),
        eq(paymentDetails.providerAccountId, providerAccountId),
        isNull(paymentDetails.erasedAt),
      ),
    )
    .limit(1);
  return row?.id ?? null;
}

/** What the provider may say of a bank account, as ours. */
export function detailStatusOf(status: string): PaymentDetailStatus {
  return status === 'approved' ? 'approved' : status === 'failed' ? 'failed' : 'pending';
}
