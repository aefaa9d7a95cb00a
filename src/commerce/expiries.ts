import { type FieldError, ValidationError } from '../base/errors.ts';
import { MAX_COMMERCE_EXPIRY } from '../payments/commerce/abi.ts';

/**
 * A commerce payment's three expiries (docs/guides/commerce.md#expiries). Callers send
 * durations in seconds from now; the contracts take absolute unix seconds, which must fit in
 * uint48 and keep pre-approval ≤ authorization ≤ refund.
 */

/** How long the buyer's authorization may wait to be sent, by default: one hour. */
const DEFAULT_PRE_APPROVAL_SECONDS = 3_600;
/** How long the funds are held for capture, by default: seven days. */
const DEFAULT_AUTHORIZATION_SECONDS = 7 * 86_400;
/** How long after the authorization expires refunds stay possible, by default: thirty days. */
const DEFAULT_REFUND_AFTER_AUTHORIZATION_SECONDS = 30 * 86_400;

export interface ExpiryDurations {
  readonly preApprovalExpiry?: number | undefined;
  readonly authorizationExpiry?: number | undefined;
  readonly refundExpiry?: number | undefined;
}

export interface ClientIdExpiryDefaults {
  readonly defaultPreApprovalExpiry: number | null;
  readonly defaultAuthorizationExpiry: number | null;
}

/** Unix seconds. */
export interface Expiries {
  readonly preApprovalExpiry: number;
  readonly authorizationExpiry: number;
  readonly refundExpiry: number;
}

const MAX_EXPIRY = Number(MAX_COMMERCE_EXPIRY);

/**
 * Each duration from the client ID's setting when it has one (it overrides the body, as the
 * reference's client IDs do: api-facts §8.1), else the body, else ours (the pre-approval's cut
 * to the authorization's); the refund window's default runs from the authorization's expiry.
 * Any rule broken: 400 naming the field.
 */
export function resolveExpiries(
  body: ExpiryDurations,
  clientId: ClientIdExpiryDefaults | null,
  now: Date,
): Expiries {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const authorization =
    clientId?.defaultAuthorizationExpiry ??
    body.authorizationExpiry ??
    DEFAULT_AUTHORIZATION_SECONDS;
  // Our own default never outlasts the authorization it precedes.
  const preApproval =
    clientId?.defaultPreApprovalExpiry ??
    body.preApprovalExpiry ??
    Math.min(DEFAULT_PRE_APPROVAL_SECONDS, authorization);
  const refund = body.refundExpiry ?? authorization + DEFAULT_REFUND_AFTER_AUTHORIZATION_SECONDS;
  const expiries = {
    preApprovalExpiry: nowSeconds + preApproval,
    authorizationExpiry: nowSeconds + authorization,
    refundExpiry: nowSeconds + refund,
  };
  const errors: FieldError[] = [];
  for (const field of ['preApprovalExpiry', 'authorizationExpiry', 'refundExpiry'] as const) {
    if (expiries[field] > MAX_EXPIRY) {
      errors.push({
        field,
        message: `ends after ${MAX_EXPIRY} (uint48), the latest expiry the escrow takes`,
      });
    }
  }
  if (errors.length > 0) throw new ValidationError(errors);
  if (expiries.preApprovalExpiry > expiries.authorizationExpiry) {
    errors.push({
      field: 'preApprovalExpiry',
      message: `must not end after authorizationExpiry (${preApproval} s > ${authorization} s)`,
    });
  }
  if (expiries.authorizationExpiry > expiries.refundExpiry) {
    errors.push({
      field: 'refundExpiry',
      message: `must not end before authorizationExpiry (${refund} s < ${authorization} s)`,
    });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return expiries;
}
