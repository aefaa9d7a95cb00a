import { and, eq } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { isNative } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { paymentIntents } from '../db/schema.ts';
import { insertPayments, type MatchedPayment } from '../detection/record.ts';
import type { PaymentSink } from '../detection/types.ts';
import type { RequestRow } from '../requests/requests.ts';
import { loadLink } from './links.ts';
import type { IntentRow } from './tracked-intent.ts';

/** Who settled a payment the aggregator reported delivered, and what the payment says of it. */
export const LIFI_SETTLEMENT = {
  detectionSource: 'lifi',
  note: 'Settled on the routing aggregator’s report that the bridge delivered this payment; payreq did not see its fee proxy event on chain.',
} as const;

export interface BridgeSettlementDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly chains: ChainRegistry;
  /** What a payment changes (request, link, webhooks); without it nothing is settled here. */
  readonly sink?: PaymentSink | undefined;
  /** How long after the aggregator reports a delivery detection has to see it first. */
  readonly settleAfterMs: number;
}

/**
 * A delivered transfer (the aggregator says the bridge delivered it): executed once the link's
 * requests are paid, as detection normally sees to. When detection has not seen the payment
 * within `settleAfterMs` (its network unread here, or the destination leg paid through another
 * contract), each unpaid request is settled on the aggregator's word with what it still needs
 * (api-facts §18, `detectionSource: "lifi"` with a note), in one transaction; a request in a
 * currency it converts from is left to detection. Returns whether the intent ended.
 */
export async function settleDelivered(
  deps: BridgeSettlementDeps,
  intent: IntentRow & { readonly linkToken: string },
): Promise<boolean> {
  const now = deps.clock.now();
  const link = await loadLink(deps.db, deps.clock, { anyAccount: true }, intent.linkToken);
  const unpaid = link.requests.filter((request) => request.status !== 'paid');
  const due =
    intent.deliveredAt !== null &&
    now.getTime() - intent.deliveredAt.getTime() >= deps.settleAfterMs;
  if (unpaid.length > 0 && (!due || !deps.sink)) return false;
  const { sink } = deps;
  let settled = false;
  try {
    settled = await deps.db.transaction(async (tx) => {
      const [ended] = await tx
        .update(paymentIntents)
        .set({ status: 'executed', endedAt: now })
        .where(and(eq(paymentIntents.id, intent.id), eq(paymentIntents.status, 'delivered')))
        .returning({ id: paymentIntents.id });
      if (!ended) return false;
      if (sink && unpaid.length > 0) {
        const matched = unpaid.flatMap((request) =>
          settlementOf(deps.chains, intent, request, now),
        );
        await insertPayments(tx, { sink, now }, matched);
      }
      return true;
    });
  } catch (error) {
    sink?.ended?.(false);
    throw error;
  }
  sink?.ended?.(true);
  return settled;
}

/** The payment a request still needs, as the aggregator's delivery makes it; none if converted. */
function settlementOf(
  chains: ChainRegistry,
  intent: IntentRow,
  request: RequestRow,
  now: Date,
): MatchedPayment[] {
  const currency = chains.currency(request.paymentCurrency);
  const network = chains.network(request.network)?.id;
  const owed = request.expectedAmount - request.payeeBorneFees - request.totalAmountPaid;
  if (!currency || !network || request.invoiceCurrency !== request.paymentCurrency || owed <= 0n) {
    return [];
  }
  const txHash = (intent.receivingTxHash ?? intent.txHash ?? '').toLowerCase();
  return [
    {
      event: {
        network,
        txHash,
        // No event to take an index from: one per request of the link, below every real one.
        logIndex: -1 - (request.position ?? 0),
        blockNumber: 0n,
        blockHash: '',
        timestamp: now,
        referenceTopic: request.referenceTopic ?? '',
        tokenAddress: isNative(currency) ? null : currency.address,
        payee: request.payee,
        amount: owed,
        feeAmount: 0n,
        feeAddress: null,
        payerAddress: intent.payerAddress,
        payerEoaAddress: intent.payerEoaAddress ?? intent.payerAddress,
        settledBy: LIFI_SETTLEMENT,
        bridge: { sourceNetwork: intent.network, sourceTxHash: intent.txHash },
      },
      request,
      requestAmount: owed,
      requestFeeAmount: 0n,
    },
  ];
}
