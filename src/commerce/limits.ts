import { type Address, getAddress, isAddress, zeroAddress } from 'viem';
import { isoFromSeconds } from '../base/dates.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import { formatAmount, parseAmount } from '../payments/amounts.ts';
import { MAX_COMMERCE_AMOUNT } from '../payments/commerce/abi.ts';
import type { CommercePaymentRow } from './payment.ts';
import type { CommerceState } from './state.ts';

/**
 * Every rule an operation must pass before anything is signed or sent
 * (docs/guides/commerce.md#limits): 400 for input that can never work, 409 for what the
 * payment's state refuses now.
 */

const MAX_FEE_BPS = 10_000;

/** A decimal amount in the token's units, greater than 0 and within uint96, as base units. */
export function commerceAmount(field: string, value: string, decimals: number): bigint {
  const parsed = parseAmount(value, decimals);
  if (!parsed.ok) throw new ValidationError([{ field, message: parsed.message }]);
  if (parsed.value <= 0n) throw new ValidationError([{ field, message: 'must be greater than 0' }]);
  if (parsed.value > MAX_COMMERCE_AMOUNT) {
    throw new ValidationError([
      {
        field,
        message: `must be at most ${formatAmount(MAX_COMMERCE_AMOUNT, decimals)} (uint96 in base units), the largest amount the escrow takes`,
      },
    ]);
  }
  return parsed.value;
}

export interface Fee {
  readonly feeBps: number;
  readonly feeReceiver: Address;
}

/**
 * `feeBps` within 0..10,000 and a `feeReceiver` whenever there is a fee: not the zero address,
 * which the escrow refuses (`ZeroFeeReceiver()`) only at the gas estimate.
 */
export function commerceFee(feeBps: number | undefined, feeReceiver: string | undefined): Fee {
  const bps = feeBps ?? 0;
  if (!Number.isInteger(bps) || bps < 0 || bps > MAX_FEE_BPS) {
    throw new ValidationError([{ field: 'feeBps', message: 'must be an integer from 0 to 10000' }]);
  }
  if (feeReceiver !== undefined && !isAddress(feeReceiver, { strict: false })) {
    throw new ValidationError([{ field: 'feeReceiver', message: 'must be an EVM address' }]);
  }
  if (bps > 0 && feeReceiver === undefined) {
    throw new ValidationError([
      { field: 'feeReceiver', message: 'is required when feeBps is greater than 0' },
    ]);
  }
  if (bps > 0 && feeReceiver !== undefined && BigInt(feeReceiver) === 0n) {
    throw new ValidationError([
      {
        field: 'feeReceiver',
        message: 'must not be the zero address when feeBps is greater than 0',
      },
    ]);
  }
  return { feeBps: bps, feeReceiver: feeReceiver ? getAddress(feeReceiver) : zeroAddress };
}

function conflict(code: ConstructorParameters<typeof AppError>[0], message: string): AppError {
  return new AppError(code, message);
}

const nowSeconds = (now: Date) => Math.floor(now.getTime() / 1000);

export function checkAuthorize(
  payment: CommercePaymentRow,
  state: CommerceState,
  now: Date,
): asserts payment is CommercePaymentRow & { payer: string } {
  if (payment.payer === null) {
    throw new AppError(
      'commerce_buyer_missing',
      'The payment names no buyer (buyerAddress): the buyer authorizes it from their wallet',
    );
  }
  if (state.authorizing) throw inFlight('an authorization');
  if (state.authorized > 0n) {
    throw conflict('commerce_already_authorized', 'The payment is already authorized');
  }
  if (nowSeconds(now) >= payment.preApprovalExpiry) {
    throw conflict(
      'commerce_preapproval_expired',
      `The pre-approval expired at ${isoFromSeconds(payment.preApprovalExpiry)} (preApprovalExpiry): the payment can no longer be authorized`,
    );
  }
}

export function checkCapture(
  payment: CommercePaymentRow,
  state: CommerceState,
  amount: bigint,
  decimals: number,
  now: Date,
): void {
  if (state.authorized === 0n) throw notAuthorized();
  if (nowSeconds(now) >= payment.authorizationExpiry) {
    throw conflict(
      'commerce_authorization_expired',
      `The authorization expired at ${isoFromSeconds(payment.authorizationExpiry)} (authorizationExpiry): nothing can be captured`,
    );
  }
  if (state.voiding) throw inFlight('a void');
  if (amount > state.capturable) {
    throw conflict(
      'commerce_capture_exceeds_capturable',
      `captureAmount ${formatAmount(amount, decimals)} is more than the capturable amount, ${formatAmount(state.capturable, decimals)}`,
    );
  }
}

export function checkVoid(state: CommerceState): void {
  if (state.voiding || (state.voided > 0n && state.held === 0n)) {
    throw conflict('commerce_already_voided', 'The payment is already voided');
  }
  if (state.authorized === 0n) throw notAuthorized();
  if (state.capturing) throw inFlight('a capture');
  if (state.held === 0n) {
    throw conflict(
      'commerce_nothing_to_void',
      'Nothing is held to void: the payment is fully captured or reclaimed',
    );
  }
}

export function checkRefund(
  payment: CommercePaymentRow,
  state: CommerceState,
  amount: bigint,
  decimals: number,
  now: Date,
): void {
  if (state.captured === 0n) {
    throw conflict('commerce_not_captured', 'Nothing is captured yet: there is nothing to refund');
  }
  if (nowSeconds(now) >= payment.refundExpiry) {
    throw conflict(
      'commerce_refund_expired',
      `The refund window closed at ${isoFromSeconds(payment.refundExpiry)} (refundExpiry)`,
    );
  }
  if (amount > state.refundable) {
    throw conflict(
      'commerce_refund_exceeds_refundable',
      `refundAmount ${formatAmount(amount, decimals)} is more than the refundable amount, ${formatAmount(state.refundable, decimals)}`,
    );
  }
}

function notAuthorized(): AppError {
  return conflict('commerce_not_authorized', 'The payment is not authorized yet');
}

function inFlight(what: string): AppError {
  return conflict(
    'commerce_action_in_flight',
    `The payment has ${what} in flight; try again once it is mined`,
  );
}
