import type { StatusResponse, SubstatusFailed } from '@lifi/types';

/**
 * Where a transfer stands, as a test or the sandbox relayer sets it for a source transaction,
 * and the `GET /v1/status` answer LI.FI gives for it. A refund is LI.FI's `DONE` with substatus
 * `REFUNDED`, its receiving transaction the refund on the source chain.
 */
export type TransferOutcome =
  | { readonly status: 'NOT_FOUND' }
  | { readonly status: 'PENDING' }
  | {
      readonly status: 'DONE';
      readonly receivingTxHash: string;
      readonly amount?: bigint;
      /** `COMPLETED` unless told; `PARTIAL` when the bridge paid out other tokens; null: none. */
      readonly substatus?: 'COMPLETED' | 'PARTIAL' | null;
    }
  | { readonly status: 'FAILED'; readonly substatus?: SubstatusFailed }
  | { readonly status: 'REFUNDED'; readonly refundTxHash: string };

export interface StatusQuery {
  readonly txHash: string;
  readonly fromChain: number;
  readonly toChain: number;
}

function sent(query: StatusQuery) {
  return { txHash: query.txHash, chainId: query.fromChain, txLink: '' };
}

export function statusAnswer(outcome: TransferOutcome, query: StatusQuery): StatusResponse {
  const common = { tool: 'across', sending: sent(query) };
  switch (outcome.status) {
    case 'NOT_FOUND':
      return {
        status: 'NOT_FOUND',
        substatusMessage: 'The transaction was not found',
        ...common,
        receiving: { chainId: query.toChain },
      };
    case 'PENDING':
      return {
        status: 'PENDING',
        substatus: 'WAIT_DESTINATION_TRANSACTION',
        substatusMessage: 'The bridge is waiting for the destination transaction',
        ...common,
        receiving: { chainId: query.toChain },
      };
    case 'DONE':
      return {
        status: 'DONE',
        ...(outcome.substatus !== null && {
          substatus: outcome.substatus ?? 'COMPLETED',
          substatusMessage:
            outcome.substatus === 'PARTIAL'
              ? 'The bridge paid out other tokens than the ones asked for'
              : 'The transfer is complete',
        }),
        ...common,
        receiving: {
          txHash: outcome.receivingTxHash,
          chainId: query.toChain,
          txLink: '',
          ...(outcome.amount !== undefined && { amount: String(outcome.amount) }),
        },
      };
    case 'FAILED':
      return {
        status: 'FAILED',
        substatus: outcome.substatus ?? 'UNKNOWN_FAILED_ERROR',
        substatusMessage: 'The transfer failed',
        sending: sent(query),
      };
    case 'REFUNDED':
      return {
        status: 'DONE',
        substatus: 'REFUNDED',
        substatusMessage: 'The tokens were refunded to the sender on the source chain',
        ...common,
        receiving: { txHash: outcome.refundTxHash, chainId: query.fromChain, txLink: '' },
      };
  }
}

/** What the aggregator reports for a deposit the local bridge's relayer filled or refunded. */
export function transferOutcomeOf(settled: {
  readonly status: 'filled' | 'refunded';
  readonly txHash: string;
}): TransferOutcome {
  return settled.status === 'filled'
    ? { status: 'DONE', receivingTxHash: settled.txHash }
    : { status: 'REFUNDED', refundTxHash: settled.txHash };
}
