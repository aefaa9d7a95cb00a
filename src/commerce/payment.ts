import type { Hex } from 'viem';
import type { commerceActions, commerceEvents, commercePayments } from '../db/schema.ts';

export type CommercePaymentRow = typeof commercePayments.$inferSelect;
export type CommerceEventRow = typeof commerceEvents.$inferSelect;
export type CommerceActionRow = typeof commerceActions.$inferSelect;

/** The wrapper's key of a payment: its request's payment reference as `bytes8`. */
export function referenceOf(payment: Pick<CommercePaymentRow, 'paymentReference'>): Hex {
  return `0x${payment.paymentReference}`;
}

/**
 * Whether an authorization (or a charge) the wrapper announced with this payment's reference is
 * the one this payment asked for. Anyone may call the wrapper with any reference, so it must
 * name the payment's merchant and token, hold exactly its amount under the escrow's hash of its
 * terms (token, maximum, expiries: `commercePaymentHash`), come from its buyer when the payment
 * names one, and be operated by the payment's operator (the server's or the tenant's declared
 * one). No event names the operator, and the escrow's hash does not hold it (the wrapper is the
 * escrow's operator): `operator` is what the wrapper stored for the reference
 * (wrapper-operator.ts), null when it knows none.
 */
export function isOurAuthorization(
  payment: Pick<
    CommercePaymentRow,
    'merchant' | 'tokenAddress' | 'amount' | 'commercePaymentHash' | 'payer' | 'operator'
  >,
  event: {
    readonly payer: string | null;
    readonly merchant: string | null;
    readonly token: string | null;
    readonly amount: bigint;
    readonly commercePaymentHash: string | null;
  },
  operator: string | null,
): boolean {
  return (
    same(event.merchant, payment.merchant) &&
    (event.token === null || same(event.token, payment.tokenAddress)) &&
    event.amount === payment.amount &&
    (payment.commercePaymentHash === null ||
      same(event.commercePaymentHash, payment.commercePaymentHash)) &&
    (payment.payer === null || same(event.payer, payment.payer)) &&
    same(operator, payment.operator)
  );
}

/** Two addresses (or hashes) alike whatever their case; null is like nothing. */
export function same(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a.toLowerCase() === b.toLowerCase();
}
