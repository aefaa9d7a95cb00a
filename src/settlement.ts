import type { ChainRegistry } from './chains/registry.ts';
import type { PaymentSink } from './detection/types.ts';
import { applyPayment, reversePayment } from './requests/settle.ts';
import { completeLinkIfPaid, reopenLinkIfUnpaid } from './secure-payments/completion.ts';
import { cancelPaymentDeliveries, enqueuePaymentEvents } from './webhooks/payment-events.ts';

/**
 * What a detected payment changes, feature by feature, in the transaction that records it:
 * the request counts it, its link completes when every request is paid, and the webhook
 * events go into the outbox. A reorganisation undoes the same in reverse.
 */
export function createSettlement(deps: { readonly chains: ChainRegistry }): PaymentSink {
  return {
    async recorded(tx, payment, now) {
      const request = await applyPayment(tx, payment.requestRowId, payment.requestAmount, now);
      if (!request) return;
      const linkToken = await completeLinkIfPaid(tx, request, now);
      await enqueuePaymentEvents(
        tx,
        { chains: deps.chains, now },
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
            payerEoaAddress: null,
          },
        },
      );
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
