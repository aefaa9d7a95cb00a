import type { FieldError } from '../base/errors.ts';
import { parseAddress } from '../chains/address.ts';
import { normaliseAllowedOrigin } from '../http/origins.ts';
import { LABEL_MESSAGE, labelFits } from './labels.ts';

/**
 * The rules a client ID's fields follow, whichever API sets them; pure, so both surfaces and
 * the CLI apply the same ones. Every check collects its errors so one 400 names every bad field.
 */

export const MAX_ALLOWED_DOMAINS = 10;
/** The published per-client-ID tiers of the rate limiter, requests per minute; null is the default tier. */
export const RATE_LIMIT_TIERS: readonly number[] = [120, 300, 600, 1200];
/** `feePercentage` as sent: up to 3 integer digits and 2 decimals (numeric(5,2) in SQL). */
const FEE_PERCENTAGE = /^(\d{1,3})(?:\.(\d{1,2}))?$/;

/** Optional settings of a client ID; null means unset. */
export interface ClientIdSettings {
  readonly feePercentage: string | null;
  readonly feeAddress: string | null;
  readonly operatorWalletAddress: string | null;
  readonly defaultPreApprovalExpiry: number | null;
  readonly defaultAuthorizationExpiry: number | null;
  readonly rateLimitPerMinute: number | null;
}

export interface ClientIdFields extends ClientIdSettings {
  readonly label: string;
  readonly allowedDomains: readonly string[];
}

/** Exactly the six settings (absent ones null), so nothing else can ride along into a write. */
export function settingsOf(input: Partial<ClientIdSettings>): ClientIdSettings {
  return {
    feePercentage: input.feePercentage ?? null,
    feeAddress: input.feeAddress ?? null,
    operatorWalletAddress: input.operatorWalletAddress ?? null,
    defaultPreApprovalExpiry: input.defaultPreApprovalExpiry ?? null,
    defaultAuthorizationExpiry: input.defaultAuthorizationExpiry ?? null,
    rateLimitPerMinute: input.rateLimitPerMinute ?? null,
  };
}

function checkAllowedDomains(domains: readonly string[], minimum: number, field: string) {
  const errors: FieldError[] = [];
  if (domains.length < minimum) {
    errors.push({ field, message: `must contain at least ${minimum} origin` });
  }
  if (domains.length > MAX_ALLOWED_DOMAINS) {
    errors.push({ field, message: `must contain at most ${MAX_ALLOWED_DOMAINS} origins` });
  }
  const origins: string[] = [];
  domains.forEach((domain, index) => {
    const check = normaliseAllowedOrigin(domain);
    if (!check.ok) errors.push({ field: `${field}[${index}]`, message: check.reason });
    else if (!origins.includes(check.origin)) origins.push(check.origin);
  });
  return { origins, errors };
}

/** `"02.50"` → `"2.5"`: one spelling per value, so `"0"` reads back as `"0"`, not SQL's `"0.00"`. */
/** A fee percentage (0 to 100, at most 2 decimals) in basis points; null when it is not one. */
export function feeBasisPoints(text: string): number | null {
  const match = FEE_PERCENTAGE.exec(text);
  if (!match) return null;
  const bps = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return bps > 10_000 ? null : bps;
}

export function canonicalFeePercentage(text: string): string | null {
  const hundredths = feeBasisPoints(text);
  if (hundredths === null) return null;
  const fraction = String(hundredths % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return `${Math.floor(hundredths / 100)}${fraction === '' ? '' : `.${fraction}`}`;
}

/**
 * Every rule at once, so one 400 names every bad field. `minDomains` is only enforced by
 * callers that send domains: a `/v1` backend client ID stays editable on `/v2`.
 */
export function checkClientIdFields(fields: ClientIdFields, minDomains: number) {
  const errors: FieldError[] = [];
  const label = fields.label.trim();
  if (!labelFits(label)) {
    errors.push({ field: 'label', message: LABEL_MESSAGE });
  }
  const domains = checkAllowedDomains(fields.allowedDomains, minDomains, 'allowedDomains');
  errors.push(...domains.errors);
  let feePercentage: string | null = null;
  if (fields.feePercentage !== null) {
    feePercentage = canonicalFeePercentage(fields.feePercentage);
    if (feePercentage === null) {
      errors.push({
        field: 'feePercentage',
        message: 'must be a number from 0 to 100 with at most 2 decimals',
      });
    }
  }
  let feeAddress: string | null = null;
  if (fields.feeAddress !== null) {
    // Fees may be paid on any network we serve, so an EVM or a Tron address.
    const parsed = parseAddress(fields.feeAddress);
    if (parsed.ok) feeAddress = parsed.address;
    else errors.push({ field: 'feeAddress', message: parsed.message });
  } else if (fields.feePercentage !== null) {
    errors.push({ field: 'feeAddress', message: 'is required when feePercentage is set' });
  }
  // Commerce payments (the only use of the operator wallet) run on EVM escrow contracts.
  const operator =
    fields.operatorWalletAddress === null
      ? null
      : parseAddress(fields.operatorWalletAddress, { kind: 'evm' });
  if (operator !== null && !operator.ok) {
    errors.push({ field: 'operatorWalletAddress', message: operator.message });
  }
  const tier = fields.rateLimitPerMinute;
  if (tier !== null && !RATE_LIMIT_TIERS.includes(tier)) {
    errors.push({
      field: 'rateLimitPerMinute',
      message: `must be one of ${RATE_LIMIT_TIERS.join(', ')}, or null for the default tier`,
    });
  }
  const normalised: ClientIdFields = {
    label,
    allowedDomains: domains.origins,
    feePercentage,
    feeAddress,
    operatorWalletAddress: operator?.ok ? operator.address : null,
    defaultPreApprovalExpiry: fields.defaultPreApprovalExpiry,
    defaultAuthorizationExpiry: fields.defaultAuthorizationExpiry,
    rateLimitPerMinute: tier,
  };
  return { fields: normalised, errors };
}
