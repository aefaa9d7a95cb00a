import type { Hex } from 'viem';
import type { commerceActions, commerceEvents, commercePayments } from '../db/schema.ts';

export type CommercePaymentRow = typeof commercePayments.$inferSelect;
export type CommerceEventRow = typeof commerceEvents.$inferSelect;
export type CommerceActionRow = typeof commerceActions.$inferSelect;

/** The wrapper's key of a payment: its request's payment reference as `bytes8`. */
export function referenceOf(payment: Pick<CommercePaymentRow, 'paymentReference'>): Hex {
  return `0x${payment.paymentReference}`;
}
