import type { Currency } from '../chains/currencies.ts';
import { USD_CAP_DECIMALS } from './fee-values.ts';

/**
 * Which currencies get a fee plan, and their amount in USD. Only the USD stablecoins of the
 * curated set (USDC, USDT, USDT0, DAI), valued 1:1: a plan is in USD and its caps are USD, so a
 * currency worth anything else (EURC, natives, fiat invoices, the token list's other tokens)
 * gets none (api-facts §13.3: "null plan when the currency is not a stablecoin"); the preview
 * refuses it.
 */
const USD_STABLECOINS: ReadonlySet<string> = new Set(['USDC', 'USDT', 'USDT0', 'DAI']);

export function isPlannable(currency: Currency, curated: boolean): boolean {
  return (
    curated &&
    (currency.type === 'ERC20' || currency.type === 'TRC20') &&
    USD_STABLECOINS.has(currency.symbol.toUpperCase())
  );
}

/** Base units of a USD stablecoin as USD with 8 decimals, rounded down past the 8th. */
export function usdOfBaseUnits(amount: bigint, decimals: number): bigint {
  return decimals >= USD_CAP_DECIMALS
    ? amount / 10n ** BigInt(decimals - USD_CAP_DECIMALS)
    : amount * 10n ** BigInt(USD_CAP_DECIMALS - decimals);
}

/** The USD (8 decimals) worth one base unit of a USD stablecoin of `decimals`, at least 1. */
export function quantumUsdOf(decimals: number): bigint {
  return decimals >= USD_CAP_DECIMALS ? 1n : 10n ** BigInt(USD_CAP_DECIMALS - decimals);
}

/** USD with 8 decimals as base units of a USD stablecoin of `decimals`, rounded down. */
export function baseUnitsOfUsd(usd: bigint, decimals: number): bigint {
  return decimals >= USD_CAP_DECIMALS
    ? usd * 10n ** BigInt(decimals - USD_CAP_DECIMALS)
    : usd / 10n ** BigInt(USD_CAP_DECIMALS - decimals);
}
