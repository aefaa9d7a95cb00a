import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { paymentIntents, securePayments } from '../db/schema.ts';
import { enqueueIntentEvent } from './intent-events.ts';

/**
 * How tracking a payer's Safe transaction ends (api-facts §2.8): executed (the Safe's
 * `ExecutionSuccess` for its hash, in `txHash`; detection confirms the payment itself), or
 * failed, with the reason `payment.failed` carries.
 */
export type TrackingOutcome =
  | { readonly kind: 'executed'; readonly txHash: string; readonly safeAddress: string | null }
  | {
      readonly kind: 'failed';
      readonly reason: FailureReason;
      readonly txHash?: string;
      /** The Safe, when known: the payer `payment.failed` names. */
      readonly safeAddress?: string | null;
    };

export const FAILURE_REASONS = {
  reverted: 'execution reverted',
  nonceUsed: 'nonce used by another transaction',
  deadline: 'deadline passed',
  noSafe: 'no Safe at the address',
} as const;

type FailureReason = (typeof FAILURE_REASONS)[keyof typeof FAILURE_REASONS];

/**
 * Ends the intent's tracking in one transaction: its status, end, hash and reason, the link's
 * 423 lifted, and on failure `payment.failed` into the outbox for each request of the link.
 * Only a row still tracking changes, so two trackers that reach the same end write it once:
 * false when another already had.
 */
export async function endTracking(
  db: Database,
  intentId: string,
  outcome: TrackingOutcome,
  now: Date,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [intent] = await tx
      .update(paymentIntents)
      .set({
        status: outcome.kind,
        endedAt: now,
        ...(outcome.txHash !== undefined && { txHash: outcome.txHash.toLowerCase() }),
        ...(outcome.kind === 'failed' && { failureReason: outcome.reason }),
        // The Safe is the payer, when the intent did not name one.
        ...(outcome.safeAddress && {
          payerAddress: sql`coalesce(${paymentIntents.payerAddress}, ${outcome.safeAddress})`,
        }),
      })
      .where(and(eq(paymentIntents.id, intentId), eq(paymentIntents.status, 'tracking')))
      .returning();
    if (!intent) return false;
    const [link] = await tx
      .update(securePayments)
      .set({ trackingUntil: null })
      .where(eq(securePayments.id, intent.securePaymentId))
      .returning({ token: securePayments.token });
    if (outcome.kind === 'failed' && link) {
      await enqueueIntentEvent(
        tx,
        link.token,
        intent,
        { event: 'payment.failed', reason: outcome.reason },
        now,
      );
    }
    return true;
  });
}
