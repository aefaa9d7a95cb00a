import { type Address, getAddress, zeroAddress } from 'viem';
import { AppError } from '../../base/errors.ts';
import { isNative } from '../../chains/currencies.ts';
import { evmForm, type PaymentLeg } from '../transactions.ts';

/**
 * The batch's one `feeAddress`. BatchConversionPayments pays every request's fee, and its own
 * batch fee, to that single address, so requests whose fees go to different addresses cannot
 * share a batch: refused rather than paying one party's fee to another. When they agree it is
 * their fee address, as Request's SDK names it (the SDK takes the first request's, which is the
 * same address whenever the requests agree). When no request names one, the SDK names the zero
 * address: kept for native-only batches (their batch fee is sent as value, which the zero
 * address takes), but a batch with ERC20 requests would then revert, since the contract's
 * batch-fee `transferFrom(payer, 0x0, fee)` runs even for 0 and USDC and OpenZeppelin's ERC20
 * refuse the zero address. There the payer is named (the batch fee, if any, stays with them),
 * or, with no wallet given, the first request's payee: a party of the payment, never 0x0.
 */
export function batchFeeAddress(legs: readonly PaymentLeg[], payer: Address | null): Address {
  const charged = legs.filter((leg) => leg.feeAmount > 0n);
  const targets = new Set(charged.map((leg) => leg.feeAddress?.toLowerCase() ?? null));
  if (targets.size > 1) {
    throw new AppError(
      'batch_fee_addresses_differ',
      'Requests whose fees go to different addresses cannot be paid in one batch',
    );
  }
  const named = charged[0]?.feeAddress ?? legs.find((leg) => leg.feeAddress)?.feeAddress;
  if (named) return getAddress(named);
  const [first] = legs;
  if (!first || legs.every((leg) => isNative(leg.currency))) return zeroAddress;
  return payer ?? evmForm(first.payee);
}
