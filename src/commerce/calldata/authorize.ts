import type { Address } from 'viem';
import { commerceWrapperAbi } from '../../payments/commerce/abi.ts';
import { type EvmTransaction, evmTransaction } from '../../payments/transactions.ts';
import { type CommercePaymentRow, referenceOf } from '../payment.ts';

/**
 * `authorizePayment(AuthParams)`: the escrow pulls `amount` from the payer (who approved the
 * wrapper) through the pre-approval collector, with no collector data. The payer or the
 * operator may send it.
 */
export function authorizeTransaction(
  payment: CommercePaymentRow & { readonly payer: string },
): EvmTransaction {
  return evmTransaction(
    payment.wrapper,
    commerceWrapperAbi,
    'authorizePayment',
    [
      {
        paymentReference: referenceOf(payment),
        payer: payment.payer as Address,
        merchant: payment.merchant as Address,
        operator: payment.operator as Address,
        token: payment.tokenAddress as Address,
        amount: payment.amount,
        maxAmount: payment.maxAmount,
        preApprovalExpiry: BigInt(payment.preApprovalExpiry),
        authorizationExpiry: BigInt(payment.authorizationExpiry),
        refundExpiry: BigInt(payment.refundExpiry),
        tokenCollector: payment.tokenCollector as Address,
        collectorData: '0x',
      },
    ],
    payment.chainId,
  );
}
