import { ValidationError } from '../../base/errors.ts';
import { MAX_BASE_UNITS, TOTAL_TOO_LARGE_MESSAGE } from '../../payments/amounts.ts';
import type { RequestRow } from '../../requests/requests.ts';

/**
 * What the two ways of paying pending payout links together check alike (a batch payout link
 * and a multicall payout): the tokens they name, and the totals one transaction moves.
 */

/** The tokens as links store them (upper case), each once: a repeat is a 400 at its index. */
export function distinctTokens(tokens: readonly string[], field: string): string[] {
  const upper = tokens.map((token) => token.toUpperCase());
  const seen = new Set<string>();
  for (const [index, token] of upper.entries()) {
    if (seen.has(token)) {
      throw new ValidationError([{ field: `${field}[${index}]`, message: 'repeats a token' }]);
    }
    seen.add(token);
  }
  return upper;
}

/**
 * One approval and one transfer carry each token's total: it must fit a uint256, or the links
 * could never be paid together.
 */
export function checkTotalsFit(requests: readonly RequestRow[], field: string): void {
  const totals = new Map<string, bigint>();
  for (const request of requests) {
    const total = (totals.get(request.paymentCurrency) ?? 0n) + request.expectedAmount;
    totals.set(request.paymentCurrency, total);
  }
  if ([...totals.values()].some((total) => total > MAX_BASE_UNITS)) {
    throw new ValidationError([{ field, message: TOTAL_TOO_LARGE_MESSAGE }]);
  }
}
