import type { CommerceLogEvent } from './detect-logs.ts';
import { type CommercePaymentRow, isOurAuthorization, referenceOf, same } from './payment.ts';
import type { WrapperOperators } from './wrapper-operator.ts';

/**
 * Whether a log of the reference is about our payment: from the wrapper it was created on and
 * operated by the payment's operator, whom the wrapper stored with the authorization (no event
 * names it: wrapper-operator.ts), as anyone may authorize on the wrapper with any reference and
 * every later event is of that authorization; an authorization (or charge) the one the payment
 * asked for (payment.ts, isOurAuthorization); other events naming its merchant, token and escrow
 * hash where they name them. The wrapper is asked only about what is ours in every other respect.
 */
export async function concerns(
  event: CommerceLogEvent,
  payment: CommercePaymentRow,
  operators: WrapperOperators,
): Promise<boolean> {
  if (!same(event.wrapper, payment.wrapper)) return false;
  const named = (a: string | null, b: string | null) => a === null || b === null || same(a, b);
  const ours =
    event.type === 'authorized' || event.type === 'charged'
      ? isOurAuthorization(payment, event, payment.operator)
      : named(event.merchant, payment.merchant) &&
        named(event.token, payment.tokenAddress) &&
        named(event.commercePaymentHash, payment.commercePaymentHash);
  if (!ours) return false;
  return same(await operators.of(payment.wrapper, referenceOf(payment)), payment.operator);
}
