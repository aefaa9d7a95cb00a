import { AppError, type FieldError, ValidationError } from '../base/errors.ts';
import { addressKey, parseAddress } from '../chains/address.ts';
import { conversionPath } from '../chains/conversion-routes.ts';
import { type Currency, isFiat, sameToken } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { DESTINATION_MISMATCH_MESSAGE, type DestinationRow } from '../destinations/destinations.ts';
import { parseTarget, type ResolvedTarget } from '../destinations/target.ts';
import { MAX_BASE_UNITS, parseAmount, TOTAL_TOO_LARGE_MESSAGE } from '../payments/amounts.ts';
import { checkBatchNetworks } from '../payments/calldata/batch.ts';
import { unconvertibleAmount } from '../payments/calldata/conversion.ts';
import type { CreateLinkInput } from './link-caller.ts';

/** The items of `POST /v2/secure-payments`, checked as far as can be without the database. */

const FIAT_CODES = 'USD, EUR, GBP, CNY, JPY';

export interface ParsedItem {
  readonly target: ResolvedTarget;
  /** The destination id as the caller wrote it (for messages). */
  readonly sent: string;
  /** Whether the item named a destination other than the client ID's bound one. */
  readonly named: boolean;
}

export interface CheckedItem extends ParsedItem {
  readonly invoice: Currency;
  readonly amount: bigint;
}

/**
 * Every check of the items that needs no database: destinations parsed (into `parsed`, item by
 * item), invoice currencies, amounts against their decimals, the networks a link may span and
 * each token's total.
 */
export function checkItems(
  chains: ChainRegistry,
  binding: Binding,
  input: CreateLinkInput,
  parsed: ParsedItem[],
): CheckedItem[] {
  const errors: FieldError[] = [];
  const items: CheckedItem[] = [];
  for (const [index, item] of input.requests.entries()) {
    const target = itemTarget(chains, binding, item.destinationId, index);
    const sent = item.destinationId ?? target.id.value;
    const named =
      binding.bound === null ||
      parseTarget(chains, binding.bound.destinationId).id.value !== target.id.value;
    parsed.push({ target, sent, named });
    const restated = restatedFields(chains, item, target, index);
    if (restated.length > 0) {
      errors.push(...restated);
      continue;
    }
    const invoice = invoiceCurrencyOf(chains, item.invoiceCurrency, target.currency, index);
    if (!invoice.ok) {
      errors.push(invoice.error);
      continue;
    }
    // The amount is written in the invoice currency: cents of a USD link, yen of a JPY one.
    const amount = parseAmount(item.amount, invoice.currency.decimals);
    if (!amount.ok) {
      errors.push({ field: `requests[${index}].amount`, message: amount.message });
      continue;
    }
    const unconvertible = unconvertibleAmount(amount.value, invoice.currency);
    if (unconvertible !== null) {
      errors.push({ field: `requests[${index}].amount`, message: unconvertible });
      continue;
    }
    items.push({ target, sent, named, invoice: invoice.currency, amount: amount.value });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  checkBatchNetworks(items.map((item) => item.target.network.id));
  // A batch pays each token's total in one approval and one transfer: it must fit a uint256.
  const totals = new Map<string, bigint>();
  for (const { target, amount, invoice } of items) {
    // Fiat amounts are bounded when converted (the batch's maxToSpend), not summed as tokens.
    if (isFiat(invoice)) continue;
    const key = target.id.tokenAddress.toLowerCase();
    totals.set(key, (totals.get(key) ?? 0n) + amount);
  }
  if ([...totals.values()].some((total) => total > MAX_BASE_UNITS)) {
    throw new ValidationError([{ field: 'requests', message: TOTAL_TOO_LARGE_MESSAGE }]);
  }
  return items;
}

/**
 * The reference's integration guide sends each item's `payee` and `paymentCurrency` beside its
 * destination (seed-vs-docs §7.4): they must say what the destination says.
 */
function restatedFields(
  chains: ChainRegistry,
  item: CreateLinkInput['requests'][number],
  target: ResolvedTarget,
  index: number,
): FieldError[] {
  const errors: FieldError[] = [];
  if (item.payee !== undefined) {
    const field = `requests[${index}].payee`;
    const sent = parseAddress(item.payee, { allowZero: true });
    const wallet = parseAddress(target.id.walletAddress, { allowZero: true });
    // A mixed-case address with a wrong checksum is refused for that, as everywhere.
    if (!sent.ok && sent.problem === 'bad_checksum') errors.push({ field, message: sent.message });
    else if (!sent.ok || !wallet.ok || addressKey(sent) !== addressKey(wallet)) {
      errors.push({
        field,
        message: `must be the destination’s wallet (${target.id.walletAddress})`,
      });
    }
  }
  const named = item.paymentCurrency === undefined ? null : chains.currency(item.paymentCurrency);
  // The token, not its id: USDT0 names the destination's USDT where they are one contract.
  if (named !== null && (named === undefined || !sameToken(named, target.currency))) {
    errors.push({
      field: `requests[${index}].paymentCurrency`,
      message: `must be the destination’s token (${target.currency.id})`,
    });
  }
  return errors;
}

/**
 * What an item's amount counts in: the destination's token (named or not), or the fiat the item
 * names, which needs a Chainlink feed path to that token on its network (as `POST /v2/request`
 * checks).
 */
function invoiceCurrencyOf(
  chains: ChainRegistry,
  code: string | undefined,
  token: Currency,
  index: number,
): { ok: true; currency: Currency } | { ok: false; error: FieldError } {
  if (code === undefined) return { ok: true, currency: token };
  const fiat = chains.currency(code);
  if (fiat && sameToken(fiat, token)) return { ok: true, currency: token };
  if (!fiat || !isFiat(fiat)) {
    return {
      ok: false,
      error: {
        field: `requests[${index}].invoiceCurrency`,
        message: `is not a fiat code (${FIAT_CODES}) or the destination’s token (${token.id})`,
      },
    };
  }
  if (token.network === 'fiat' || !conversionPath(chains, token.network, fiat, token)) {
    throw new AppError(
      'conversion_route_unavailable',
      `No conversion route from ${fiat.id} to ${token.id} on ${token.network}`,
    );
  }
  return { ok: true, currency: fiat };
}

/** The client ID's bound destination, and whether its lines must all pay it. */
export interface Binding {
  readonly bound: DestinationRow | null;
  /**
   * An orchestrator acting for the client ID may only have the account paid where it is bound
   * (api-facts §11.2): another destination is refused (403). The client ID itself may name
   * other destinations of its account line by line, as the reference's batch-payout guide does;
   * it documents the refusal only for orchestrator-linked client IDs.
   */
  readonly boundOnly: boolean;
}

/**
 * What an item pays: its own `destinationId`, or without one the client ID's bound destination
 * (under an orchestrator, an inline id must name that one). Whether an inline destination is an
 * active one of the account, the write checks.
 */
function itemTarget(
  chains: ChainRegistry,
  { bound, boundOnly }: Binding,
  destinationId: string | undefined,
  index: number,
): ResolvedTarget {
  if (bound && destinationId !== undefined && !boundOnly) {
    const named = parseTarget(chains, destinationId);
    if (named.id.value !== parseTarget(chains, bound.destinationId).id.value) return named;
  }
  if (bound) {
    const target = parseTarget(chains, bound.destinationId);
    // Compare canonical forms: the bound id written in another case is still the bound id.
    if (
      destinationId !== undefined &&
      parseTarget(chains, destinationId).id.value !== target.id.value
    ) {
      throw new AppError('destination_mismatch', DESTINATION_MISMATCH_MESSAGE);
    }
    if (!bound.active) {
      throw new AppError(
        'destination_inactive',
        'The payee destination bound to this client ID is inactive',
      );
    }
    return target;
  }
  if (destinationId === undefined) {
    throw new ValidationError([
      {
        field: `requests[${index}].destinationId`,
        message:
          'is required: send destinationId, or payee and paymentCurrency to pick the account’s destination for them',
      },
    ]);
  }
  return parseTarget(chains, destinationId);
}
