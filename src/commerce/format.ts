import type { ChainRegistry } from '../chains/registry.ts';
import { formatAmount } from '../payments/amounts.ts';
import { decimalsOf } from './actions.ts';
import type { CommercePaymentRow } from './payment.ts';

/** Base units of the payment's token as the decimal string the API speaks. */
export function formatted(
  chains: ChainRegistry,
  payment: CommercePaymentRow,
  value: bigint,
): string {
  return formatAmount(value, decimalsOf(chains, payment));
}
