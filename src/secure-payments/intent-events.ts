import type { Database } from '../db/client.ts';
import type { paymentIntents } from '../db/schema.ts';
import { listeners, writeDeliveries } from '../webhooks/outbox.ts';
import { loadLink } from './links.ts';

type Intent = typeof paymentIntents.$inferSelect;

/** What an ended intent tells each request of its link (the reference's background job). */
export type IntentEvent =
  | { readonly event: 'payment.failed'; readonly reason: string }
  | {
      readonly event: 'payment.refunded';
      readonly refundAmount: string;
      readonly refundTxHash: string | null;
    };

/**
 * `payment.failed` or `payment.refunded` (webhooks-0.31.md) for each request the intent was to
 * pay, to each request's audience, inside the caller's transaction.
 */
export async function enqueueIntentEvent(
  tx: Database,
  token: string,
  intent: Intent,
  what: IntentEvent,
  now: Date,
): Promise<void> {
  const link = await loadLink(tx, { now: () => now }, { anyAccount: true }, token);
  for (const request of link.requests) {
    const { webhookIds, clientId } = await listeners(tx, {
      accountId: request.accountId,
      clientIdId: request.clientIdId,
    });
    const common = {
      requestId: request.requestId,
      requestID: request.requestId,
      paymentReference: `0x${request.paymentReference}`,
      timestamp: now.toISOString(),
      network: intent.network,
      paymentProcessor: 'request-network',
      ...(clientId !== null && { clientId }),
      securePaymentToken: token,
      ...(intent.safeTxHash !== null && { safeTxHash: intent.safeTxHash }),
      ...(intent.txHash !== null && { txHash: intent.txHash }),
      payerAddress: intent.payerAddress,
    };
    await writeDeliveries(tx, now, webhookIds, [
      what.event === 'payment.failed'
        ? {
            event: what.event,
            payload: { ...common, subStatus: 'failed', failureReason: what.reason },
          }
        : {
            event: what.event,
            payload: {
              ...common,
              refundedTo: intent.payerAddress ?? intent.payerEoaAddress,
              refundAmount: what.refundAmount,
              currency: request.paymentCurrency,
              refundTxHash: what.refundTxHash,
            },
          },
    ]);
  }
}
