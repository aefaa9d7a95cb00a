import { commerceWrapperAbi } from '../../payments/commerce/abi.ts';
import { type EvmTransaction, evmTransaction } from '../../payments/transactions.ts';
import { type CommercePaymentRow, referenceOf } from '../payment.ts';

/** `voidPayment(ref)`, the operator's: every unit still held goes back to the payer. */
export function voidTransaction(payment: CommercePaymentRow): EvmTransaction {
  return evmTransaction(
    payment.wrapper,
    commerceWrapperAbi,
    'voidPayment',
    [referenceOf(payment)],
    payment.chainId,
  );
}
