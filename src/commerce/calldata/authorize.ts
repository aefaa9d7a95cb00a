import type { Address } from 'viem';
import { commerceConsentAbi, commerceWrapperAbi } from '../../payments/commerce/abi.ts';
import { type EvmTransaction, evmTransaction } from '../../payments/transactions.ts';
import { type CommercePaymentRow, referenceOf } from '../payment.ts';

type NamedPayment = CommercePaymentRow & { readonly payer: string };

/** The wrapper's `AuthParams` of a payment: the pre-approval collector, no collector data. */
export function authParamsOf(payment: NamedPayment) {
  return {
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
    collectorData: '0x' as const,
  };
}

/**
 * `authorizePayment(AuthParams)`: the escrow pulls `amount` from the payer (who approved the
 * wrapper) through the pre-approval collector, with no collector data. The payer may send it,
 * or anyone (the operator) once the payer pre-approved these terms.
 */
export function authorizeTransaction(payment: NamedPayment): EvmTransaction {
  return evmTransaction(
    payment.wrapper,
    commerceWrapperAbi,
    'authorizePayment',
    [authParamsOf(payment)],
    payment.chainId,
  );
}

/**
 * `preApproveAuthorization(AuthParams)`, the payer's: its consent to exactly these terms, which
 * lets the operator send `authorizePayment` (`POST /{requestId}/authorize`), once.
 */
export function preApproveTransaction(payment: NamedPayment): EvmTransaction {
  return evmTransaction(
    payment.wrapper,
    commerceConsentAbi,
    'preApproveAuthorization',
    [authParamsOf(payment)],
    payment.chainId,
  );
}
