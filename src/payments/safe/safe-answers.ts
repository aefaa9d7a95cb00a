import type { BatchCalldata } from '../calldata/batch-calldata.ts';
import type { SingleMetadata } from '../calldata/shared.ts';
import type { EvmTransaction, PaymentTransaction } from '../transactions.ts';
import {
  type PayerSafe,
  type SafeTransaction,
  safeExecution,
  safeTransaction,
} from './safe-transaction.ts';

/**
 * `/pay`'s answers for a Safe payer, from the answers a wallet would get (built with the Safe
 * as that wallet, so balances and allowances are the Safe's): the transactions become the one
 * call the Safe makes (`safeExecution`), `safeTransaction` says what to sign and execute, and
 * `metadata.safePaymentDeadline` until when. The gas is the executing owner's, not the Safe's,
 * so the Safe's own ether says nothing of it: `hasEnoughGas` is left out (null in a batch).
 */

/** The transactions of an EVM answer, which a Safe can make (Tron links are refused before). */
function evmCalls(transactions: readonly PaymentTransaction[]): EvmTransaction[] {
  return transactions.map((tx) => {
    if ('type' in tx) throw new Error('a Safe pays on EVM networks only');
    return { to: tx.to, data: tx.data, value: tx.value, chainId: tx.chainId };
  });
}

interface SingleAnswer {
  readonly transactions: readonly PaymentTransaction[];
  readonly metadata: SingleMetadata;
}

/** Variant A: one transaction, its approval (if any) and fee legs inside it. */
export function safeSingleAnswer<T extends SingleAnswer>(safe: PayerSafe, answer: T) {
  const safeTx = safeTransaction(safe, evmCalls(answer.transactions));
  const {
    approvalTransactionIndex: _index,
    approvalTransactionsCount: _count,
    hasEnoughGas: _gas,
    ...metadata
  } = answer.metadata;
  return {
    ...answer,
    transactions: [{ ...safeExecution(safeTx), chainType: 'evm' as const }],
    metadata: {
      ...metadata,
      stepsRequired: 1,
      paymentTransactionIndex: 0,
      safePaymentDeadline: safe.deadline,
    },
    safeTransaction: safeTx,
  };
}

export interface SafeBatchCalldata extends Omit<BatchCalldata, 'metadata'> {
  readonly metadata: BatchCalldata['metadata'] & { readonly safePaymentDeadline: number };
  readonly safeTransaction: SafeTransaction;
}

/** Variant B: no approval of its own, the batch payment the one call (approvals inside it). */
export function safeBatchAnswer(safe: PayerSafe, batch: BatchCalldata): SafeBatchCalldata {
  const safeTx = safeTransaction(safe, [
    ...batch.ERC20ApprovalTransactions,
    batch.batchPaymentTransaction,
  ]);
  return {
    ERC20ApprovalTransactions: [],
    batchPaymentTransaction: safeExecution(safeTx),
    metadata: {
      ...batch.metadata,
      hasEnoughGas: null,
      canMakePayment: batch.metadata.hasEnoughBalance,
      safePaymentDeadline: safe.deadline,
    },
    safeTransaction: safeTx,
  };
}
