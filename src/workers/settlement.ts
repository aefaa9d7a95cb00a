import type { ChainRegistry } from '../chains/registry.ts';
import type { PaymentSink, RecordedPayment } from '../detection/types.ts';
import { fundTransfer } from '../offramp/transfers.ts';
import {
  cancelPaymentDeliveries,
  enqueuePaymentEvents,
  type Heard,
  readListeners,
} from '../requests/payment-events.ts';
import type { RequestRow } from '../requests/requests.ts';
import { applyPayments, reversePayment } from '../requests/settle.ts';
import {
  completeLinksIfPaid,
  linksCompleted,
  type PaidLink,
  paidLinksOf,
  reopenLinkIfUnpaid,
} from '../secure-payments/completion.ts';
import type { Claimed } from '../webhooks/claims.ts';
import type { DeliveryHandoff } from '../webhooks/handoff.ts';

/**
 * What detected payments change, feature by feature, in the transaction that records them:
 * their requests count them, a link completes when every request of it is paid, and the
 * webhook events go into the outbox (claimed by this process's dispatcher, when it has room, and handed
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
  /**
   * Rows the dispatcher granted room for in that transaction: all of `handed` once written,
   * more when a write failed after its room was granted (given back when the transaction ends).
   */
  let leased = 0;
  const lease =
    handoff &&
    ((now: Date) => (rows: number) => {
      const until = handoff.lease(now, rows);
      if (until !== null) leased += rows;
      return until;
    });
  /**
   * `recorded`, with what it reads of the requests read before the transaction: who hears of
   * them, and their links (then completed by the statement that writes the events).
   */
  const recordedWith =
    (ahead?: {
      readonly heard: Heard;
      readonly links: ReadonlyMap<string, PaidLink>;
    }): PaymentSink['recorded'] =>
    async (tx, recorded, now) => {
      const requests = await applyPayments(
        tx,
        recorded.map((payment) => ({
          requestRowId: payment.requestRowId,
          amount: payment.requestAmount,
        })),
        now,
      );
      const settled: { payment: RecordedPayment; request: RequestRow }[] = [];
      for (const [i, payment] of recorded.entries()) {
        const request = requests[i];
        if (!request) continue;
        // Paid to an off-ramp deposit address: the provider's callbacks send its events, and
        // payment.confirmed only once fiat is sent (src/offramp/events.ts).
        if (
          request.cryptoToFiat &&
          payment.event.payee.toLowerCase() !== request.payee.toLowerCase() &&
          (await fundTransfer(tx, request.id, payment.event.payee, payment.event.txHash, now))
        )
          continue;
        settled.push({ payment, request });
      }
      const counted = settled.map(({ request }) => request);
      const links = ahead?.links ?? (await completeLinksIfPaid(tx, counted, now));
      const claimed = await enqueuePaymentEvents(
        tx,
        {
          chains: deps.chains,
          now,
          lease: lease?.(now),
          heard: ahead?.heard,
          alongside: ahead ? linksCompleted(counted, now) : null,
        },
        settled.map(({ payment, request }) => ({
          request,
          link:
            request.securePaymentId === null ? null : (links.get(request.securePaymentId) ?? null),
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
        })),
      );
      handed.push(...claimed);
    };
  const sink: PaymentSink = {
    recorded: recordedWith(),
    async readAhead(db, requests) {
      const [heard, links] = await Promise.all([
        readListeners(db, requests),
        paidLinksOf(db, requests),
      ]);
      return { ...sink, recorded: recordedWith({ heard, links }) };
    },
    ended(committed) {
      const offered = committed ? handed : [];
      if (offered.length > 0) handoff?.offer(offered);
      if (leased > offered.length) handoff?.release(leased - offered.length);
      handed = [];
      leased = 0;
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
  return sink;
}
