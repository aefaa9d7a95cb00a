import { and, eq, inArray, isNotNull, or } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { multicallChildren, paymentIntents } from '../db/schema.ts';
import type { RequestRow } from '../requests/requests.ts';
import type { DetectedPayment } from './types.ts';

/**
 * The deposit transaction of a cross-chain payment, from the payer's bridge intent on the
 * request's link (or the multicall parent that paid it) from the payment's source network: the
 * one whose receiving transaction the aggregator reported to be this payment's, else the only
 * one still under way. Null when none or several could be it: the bridge tracker fills it in
 * when the aggregator names the delivering transaction (bridge-tracker.ts).
 */
export async function depositTxOf(
  tx: Database,
  request: RequestRow,
  event: DetectedPayment,
): Promise<string | null> {
  if (!event.bridge || request.securePaymentId === null) return null;
  const parents = tx
    .select({ id: multicallChildren.parentId })
    .from(multicallChildren)
    .where(eq(multicallChildren.childId, request.securePaymentId));
  const rows = await tx
    .select({
      txHash: paymentIntents.txHash,
      receivingTxHash: paymentIntents.receivingTxHash,
      status: paymentIntents.status,
    })
    .from(paymentIntents)
    .where(
      and(
        eq(paymentIntents.kind, 'bridge'),
        eq(paymentIntents.network, event.bridge.sourceNetwork),
        isNotNull(paymentIntents.txHash),
        or(
          eq(paymentIntents.securePaymentId, request.securePaymentId),
          inArray(paymentIntents.securePaymentId, parents),
        ),
      ),
    );
  const delivering = rows.find(
    (row) => row.receivingTxHash?.toLowerCase() === event.txHash.toLowerCase(),
  );
  const underWay = rows.filter((row) => row.status === 'bridging');
  const [only] = underWay;
  return delivering?.txHash ?? (underWay.length === 1 && only ? only.txHash : null);
}
