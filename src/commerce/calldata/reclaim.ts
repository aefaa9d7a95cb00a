import { commerceWrapperAbi } from '../../payments/commerce/abi.ts';
import { type EvmTransaction, evmTransaction } from '../../payments/transactions.ts';
import { type CommercePaymentRow, referenceOf } from '../payment.ts';

/**
 * `reclaimPayment(ref)`, the payer's alone, once the authorization has expired: every unit
 * still held goes back to the payer.
 */
export function reclaimTransaction(payment: CommercePaymentRow): EvmTransaction {
  return evmTransaction(
    payment.wrapper,
    commerceWrapperAbi,
    'reclaimPayment',
    [referenceOf(payment)],
    payment.chainId,
  );
}
