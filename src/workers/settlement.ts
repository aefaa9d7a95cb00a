import type { ChainRegistry } from '../chains/registry.ts';
import type { PaymentSink } from '../detection/types.ts';
import { fundTransfer } from '../offramp/transfers.ts';
import { cancelPaymentDeliveries, enqueuePaymentEvents } from '../requests/payment-events.ts';
import { applyPayment, reversePayment } from '../requests/settle.ts';
import { completeLinkIfPaid, reopenLinkIfUnpaid } from '../secure-payments/completion.ts';
import type { Claimed } from '../webhooks/claims.ts';
import type { DeliveryHandoff } from '../webhooks/handoff.ts';

/**
 * What a detected payment changes, feature by feature, in the transaction that records it:
 * the request counts it, its link completes when every request is paid, and the webhook
 * events go into the outbox (claimed by this process's dispatcher, when it has room, and handed
 * to it on commit). A reorganisation undoes the same in reverse. One per indexer: what it
 * hands over belongs to that indexer's open transaction.
 */
export function createSettlement(deps: {
  readonly chains: ChainRegistry;
  /** This process's dispatcher, handed the events once their transaction commits. */
  readonly handoff?: DeliveryHandoff;
}): PaymentSink {
  const { handoff } = deps;
  /** Events written claimed by this process in the transaction now open. */
  let handed: Claimed[] = [];
  return {
    async recorded(tx, payment, now) {
      const request = await applyPayment(tx, payment.requestRowId, payment.requestAmount, now);
      if (!request) return;
      // Paid to an off-ramp deposit address: the provider's callbacks send its events, and
      // payment.confirmed only once fiat is sent (src/offramp/events.ts).
      if (
        request.cryptoToFiat &&
        payment.event.payee.toLowerCase() !== request.payee.toLowerCase() &&
        (await fundTransfer(tx, request.id, payment.event.payee, payment.event.txHash, now))
      )
        return;
      const linkToken = await completeLinkIfPaid(tx, request, now);
      const claimed = await enqueuePaymentEvents(
        tx,
        { chains: deps.chains, now, lease: handoff && ((rows) => handoff.lease(now, rows)) },
        {
          request,
          linkToken,
          payment: {
            id: payment.id,
            network: payment.event.network,
            txHash: payment.event.txHash,
            amount: payment.event.amount,
            feeAmount: payment.event.feeAmount,
            requestAmount: payment.requestAmount,
            amountInUsd: payment.event.conversion?.amountInUsd ?? null,
            payerAddress: payment.event.payerAddress,
            payerEoaAddress: payment.event.payerEoaAddress,
            settledBy: payment.event.settledBy,
          },
        },
      );
      handed.push(...claimed);
    },
    ended(committed) {
      if (handed.length > 0) {
        if (committed) handoff?.offer(handed);
        else handoff?.release(handed.length);
      }
      handed = [];
    },
    async dropped(tx, payments) {
      await cancelPaymentDeliveries(
        tx,
        payments.map((payment) => payment.id),
      );
      for (const payment of payments) {
        const request = await reversePayment(tx, payment.requestRowId, payment.requestAmount);
        if (request) await reopenLinkIfUnpaid(tx, request);
      }
    },
  };
}
