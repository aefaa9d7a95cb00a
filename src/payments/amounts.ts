/**
 * Amounts cross the HTTP edge as human-readable decimal strings ("12.50") and live inside as
 * integers of base units (bigint). No float ever touches a money path.
 */

/**
 * The most a token contract can move in one call: amounts are uint256 on chain (numeric(78,0)
 * holds anything below 10^78; uint256 tops out near 1.16e77).
 */
export const MAX_BASE_UNITS = 2n ** 256n - 1n;
const AMOUNT_TOO_LARGE_MESSAGE = 'is more than a token contract can move (2^256 - 1 base units)';
export const TOTAL_TOO_LARGE_MESSAGE =
  'add up to more than a token contract can move in one payment (2^256 - 1 base units)';

type AmountProblem = 'not_a_decimal' | 'not_positive' | 'too_many_decimals' | 'too_large';

export type ParsedAmount =
  | { readonly ok: true; readonly value: bigint }
  | { readonly ok: false; readonly problem: AmountProblem; readonly message: string };

const DECIMAL = /^(0|[1-9]\d*)(?:\.(\d+))?$/;
/** 78 digits, a dot and 21 decimals: longer input is refused before any parsing work. */
const MAX_AMOUNT_LENGTH = 100;

/**
 * Parses a strictly positive decimal with at most `decimals` fractional digits. Refused:
 * signs, exponents, whitespace, leading zeros, a bare dot, and more decimals than the token
 * has (rounding would move someone's money).
 */
export function parseAmount(input: string, decimals: number): ParsedAmount {
  if (input.length > MAX_AMOUNT_LENGTH) {
    return {
      ok: false,
      problem: 'too_large',
      message: `must be at most ${MAX_AMOUNT_LENGTH} characters`,
    };
  }
  const match = DECIMAL.exec(input);
  if (!match) {
    return {
      ok: false,
      problem: 'not_a_decimal',
      message: 'must be a decimal number such as 12.5 (no sign, exponent or spaces)',
    };
  }
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) {
    return {
      ok: false,
      problem: 'too_many_decimals',
      message: `must have at most ${decimals} decimal places`,
    };
  }
  const value =
    BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
  if (value === 0n)
    return { ok: false, problem: 'not_positive', message: 'must be greater than 0' };
  if (value > MAX_BASE_UNITS)
    return { ok: false, problem: 'too_large', message: AMOUNT_TOO_LARGE_MESSAGE };
  return { ok: true, value };
}

/** Base units → shortest decimal string ("1000000", 6 → "1"; 1500000 → "1.5"). */
export function formatAmount(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const fraction = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * What one unit of the invoice currency cost in the payment currency (`paid` base units for
 * `invoiced` base units), to 8 decimals, rounded down: "1.08" for €100.00 paid with 108 USDC.
 */
export function conversionRate(
  paid: { readonly amount: bigint; readonly decimals: number },
  invoiced: { readonly amount: bigint; readonly decimals: number },
): string {
  if (invoiced.amount === 0n) return '0';
  const scaled =
    (paid.amount * 10n ** BigInt(invoiced.decimals) * 10n ** 8n) /
    (invoiced.amount * 10n ** BigInt(paid.decimals));
  return formatAmount(scaled, 8);
}

/** USD held with 8 decimals (as the price feeds give it) → cents, rounded down: "12.34". */
export function formatUsd(value: bigint): string {
  const cents = value / 10n ** 6n;
  const text = formatAmount(cents, 2);
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}
