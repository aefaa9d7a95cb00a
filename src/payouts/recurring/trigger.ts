import type { Address, Hex } from 'viem';
import { referenceBytes } from '../../payments/references.ts';
import { type EvmTransaction, evmTransaction } from '../../payments/transactions.ts';
import { recurringPaymentProxyAbi } from './abi.ts';
import type { SchedulePermitValues } from './permit.ts';

export interface TriggerInput {
  readonly chainId: number;
  /** The network's ERC20RecurringPaymentProxy: the permit's `verifyingContract`. */
  readonly proxy: Address;
  /** The values the payer signed, exactly. */
  readonly permit: SchedulePermitValues;
  /** The payer's 65-byte EIP-712 signature over the permit. */
  readonly signature: Hex;
  /** 1-based: payment n is due at `firstPayment + (n - 1) × periodSeconds`. */
  readonly index: number;
  /** This payment's own reference, 16 hex digits: the ERC20FeeProxy event carries it. */
  readonly paymentReference: string;
}

/**
 * The relayer's call that pays one index of a signed schedule:
 * `triggerRecurringPayment(permit, signature, index, paymentReference)` (contracts.md §4).
 * An index outside 1..totalPayments is a caller's bug, refused here rather than paid for in gas.
 */
export function triggerRecurringPayment(input: TriggerInput): EvmTransaction {
  const { permit, index } = input;
  if (!Number.isInteger(index) || index < 1 || index > permit.totalPayments) {
    throw new RangeError(`index ${index} is outside 1..${permit.totalPayments}`);
  }
  return evmTransaction(
    input.proxy,
    recurringPaymentProxyAbi,
    'triggerRecurringPayment',
    [permit, input.signature, index, referenceBytes(input.paymentReference)],
    input.chainId,
  );
}
