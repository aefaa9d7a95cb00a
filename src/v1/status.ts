import { requestStatus, type StatusDeps } from '../requests/read.ts';
import type { RequestRow } from '../requests/requests.ts';

/**
 * `GET /v1/request/{paymentReference}`: v2's status, cut to the fields v1 has. A payment that
 * left and arrived on one network has no destination transaction of its own (null); a
 * cross-chain one has its deposit (`sourceTxHash`) and the fill that paid; `note` says why a
 * payment was settled on the routing aggregator's word.
 */
export async function v1Status(deps: StatusDeps, row: RequestRow) {
  const status = await requestStatus(deps, row);
  return {
    hasBeenPaid: status.hasBeenPaid,
    paymentReference: status.paymentReference,
    requestId: status.requestId,
    requestAmount: status.requestAmount,
    isListening: status.isListening,
    payments: status.payments.map((payment) => ({
      sourceTxHash: payment.sourceTxHash,
      destinationTxHash:
        payment.sourceNetwork === payment.destinationNetwork ? null : payment.destinationTxHash,
      detectionSource: payment.detectionSource,
      note: payment.note,
    })),
  };
}
