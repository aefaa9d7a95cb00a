import { type Address, getAddress } from 'viem';
import { type Currency, isNative } from '../../chains/currencies.ts';
import { referenceBytes } from '../references.ts';
import type { PaymentLeg } from '../transactions.ts';
import {
  type ConversionQuote,
  convertedTotal,
  isConversionLeg,
  MAX_RATE_TIMESPAN,
  maxToSpendOf,
  padFiat,
  pathOf,
} from './conversion.ts';
import type { CalldataDeps } from './shared.ts';

/**
 * A batch's legs as BatchConversionPayments takes them: one request detail per leg, grouped
 * under the contract's meta ids (ERC20 conversions, ERC20, native, native conversions), what
 * the batch takes of each currency, and the rate each invoice currency converts at.
 */

/** What the batch takes of one currency, split as the contract charges its batch fee. */
export interface Spend {
  readonly currency: Currency;
  /** Plain requests: amounts with fees, and the amounts alone (the batch fee's base). */
  plain: bigint;
  plainAmounts: bigint;
  /** Conversion requests: their quotes, and the `maxToSpend`s the contract pulls (or is sent). */
  quoted: bigint;
  capped: bigint;
}

interface RateSum {
  readonly invoice: Currency;
  readonly payment: Currency;
  /** In the proxies' 8 decimals (`convertedTotal`). */
  invoiced: bigint;
  converted: bigint;
  rateTimestamp: bigint;
}

type Detail = ReturnType<typeof detail>;

function detail(
  leg: PaymentLeg,
  path: readonly Address[],
  amounts: { amount: bigint; fee: bigint; maxToSpend: bigint; maxRateTimespan: bigint },
) {
  return {
    recipient: getAddress(leg.payee),
    requestAmount: amounts.amount,
    path,
    paymentReference: referenceBytes(leg.paymentReference),
    feeAmount: amounts.fee,
    maxToSpend: amounts.maxToSpend,
    maxRateTimespan: amounts.maxRateTimespan,
  };
}

export interface GroupedLegs {
  /** By token contract (the native currency by its id). */
  readonly spends: Map<string, Spend>;
  readonly rates: Map<string, RateSum>;
  readonly groups: Record<'erc20Conversion' | 'erc20' | 'native' | 'nativeConversion', Detail[]>;
}

/** `quotes`: per leg, in the legs' order, a conversion leg's quote (null for the others). */
export function groupLegs(
  deps: CalldataDeps,
  legs: readonly PaymentLeg[],
  quotes: readonly (ConversionQuote | null)[],
): GroupedLegs {
  const spends = new Map<string, Spend>();
  const rates = new Map<string, RateSum>();
  const groups: Record<'erc20Conversion' | 'erc20' | 'native' | 'nativeConversion', Detail[]> = {
    erc20Conversion: [],
    erc20: [],
    native: [],
    nativeConversion: [],
  };
  legs.forEach((leg, index) => {
    const native = isNative(leg.currency);
    // One spend per token contract, which one approval covers: two currency ids may name one
    // token (USDT and USDT0 on Arbitrum and Polygon), and two approvals of it would not add up.
    const key = native ? leg.currency.id : leg.currency.address.toLowerCase();
    const spend = spends.get(key) ?? {
      currency: leg.currency,
      plain: 0n,
      plainAmounts: 0n,
      quoted: 0n,
      capped: 0n,
    };
    spends.set(key, spend);
    if (!isConversionLeg(leg)) {
      spend.plain += leg.amount + leg.feeAmount;
      spend.plainAmounts += leg.amount;
      // The contract never reads a native entry's path; the SDK puts the native currency's
      // Request hash there (our native currencies' address), and so do we, for the same bytes.
      const path = [getAddress(leg.currency.address)];
      const plain = { amount: leg.amount, fee: leg.feeAmount, maxToSpend: 0n, maxRateTimespan: 0n };
      groups[native ? 'native' : 'erc20'].push(detail(leg, path, plain));
      return;
    }
    const quote = quotes[index];
    if (!quote) throw new Error(`conversion leg ${leg.requestId} has no quote`);
    const maxToSpend = maxToSpendOf(quote.converted);
    spend.quoted += quote.converted;
    spend.capped += maxToSpend;
    groups[native ? 'nativeConversion' : 'erc20Conversion'].push(
      detail(leg, pathOf(deps, leg), {
        amount: padFiat(leg.amount, leg.invoiceCurrency),
        fee: leg.feeAmount,
        maxToSpend,
        maxRateTimespan: MAX_RATE_TIMESPAN,
      }),
    );
    const pair = `${leg.invoiceCurrency.id}>${leg.currency.id}`;
    const rate = rates.get(pair) ?? {
      invoice: leg.invoiceCurrency,
      payment: leg.currency,
      invoiced: 0n,
      converted: 0n,
      rateTimestamp: quote.rateTimestamp,
    };
    rate.invoiced += convertedTotal(leg);
    rate.converted += quote.converted;
    if (quote.rateTimestamp < rate.rateTimestamp) rate.rateTimestamp = quote.rateTimestamp;
    rates.set(pair, rate);
  });

  return { spends, rates, groups };
}
