import type { EvmTransaction } from '../payments/transactions.ts';
import type { CommercePaymentRow } from './payment.ts';

/** The `/calldata` answer: the call the payment's operator signs and sends. */
export function operatorCall(payment: CommercePaymentRow, tx: EvmTransaction) {
  return {
    requestId: payment.requestId,
    calldata: tx.data,
    to: tx.to,
    value: '0',
    operator: payment.operator,
  };
}
