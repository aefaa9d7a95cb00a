import { commerceWrapperAbi } from '../../payments/commerce/abi.ts';
import { type EvmTransaction, evmTransaction } from '../../payments/transactions.ts';
import { type CommercePaymentRow, referenceOf } from '../payment.ts';

/**
 * `refundPayment(ref, amount, operatorRefundCollector, 0x)`, the operator's: the wrapper pulls
 * `amount` from the operator (who approved it) and sends it to the payer.
 */
export function refundTransaction(
  payment: CommercePaymentRow,
  refund: { readonly amount: bigint; readonly refundCollector: string },
): EvmTransaction {
  return evmTransaction(
    payment.wrapper,
    commerceWrapperAbi,
    'refundPayment',
    [referenceOf(payment), refund.amount, refund.refundCollector, '0x'],
    payment.chainId,
  );
}
