import type { Address } from 'viem';
import { commerceWrapperAbi } from '../../payments/commerce/abi.ts';
import { type EvmTransaction, evmTransaction } from '../../payments/transactions.ts';
import { type CommercePaymentRow, referenceOf } from '../payment.ts';

/**
 * `capturePayment(ref, amount, feeBps, feeReceiver)`, the operator's: the merchant gets
 * `amount - amount × feeBps / 10,000` through ERC20FeeProxy with the reference, the fee goes to
 * `feeReceiver` (the zero address with no fee).
 */
export function captureTransaction(
  payment: CommercePaymentRow,
  capture: { readonly amount: bigint; readonly feeBps: number; readonly feeReceiver: Address },
): EvmTransaction {
  return evmTransaction(
    payment.wrapper,
    commerceWrapperAbi,
    'capturePayment',
    [referenceOf(payment), capture.amount, capture.feeBps, capture.feeReceiver],
    payment.chainId,
  );
}
