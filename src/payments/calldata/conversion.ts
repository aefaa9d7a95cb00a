import { type Address, getAddress } from 'viem';
import { AppError } from '../../base/errors.ts';
import { conversionPath } from '../../chains/conversion-routes.ts';
import { type Currency, isFiat, isNative } from '../../chains/currencies.ts';
import {
  chainlinkConversionPathAbi,
  erc20Abi,
  erc20ConversionProxyAbi,
  ethConversionProxyAbi,
} from '../abis.ts';
import { conversionRate, formatAmount } from '../amounts.ts';
import { networkFee } from '../gas.ts';
import type { Payer } from '../payer.ts';
import { readPayerState } from '../payer-state.ts';
import { referenceBytes } from '../references.ts';
import { type EvmTransaction, evmTransaction, type PaymentLeg } from '../transactions.ts';
import {
  type CalldataDeps,
  multicallOf,
  RESETS_ALLOWANCE,
  type SingleCalldata,
  type SingleMetadata,
  single,
} from './shared.ts';

/**
 * A request written in fiat, paid in a token or the native currency at the on-chain rate
 * (contracts.md §3): Erc20ConversionProxy's `transferFromWithReferenceAndFee` (after an
 * approval of the conversion proxy) or EthConversionProxy's `transferWithReferenceAndFee`,
 * with the path of currency hashes, the amount and fee in the fiat's 8-decimal form, a
 * `maxToSpend` above today's rate by `CONVERSION_SLIPPAGE_BPS`, and `MAX_RATE_TIMESPAN`.
 */

/** How far the rate may move against the payer between the quote and the transaction. */
const CONVERSION_SLIPPAGE_BPS = 200n;
/**
 * The oldest rate the proxies accept, in seconds. Chainlink's fiat feeds are refreshed at
 * least daily (their heartbeat); two days leaves a missed update room without paying at a
 * rate from last week.
 */
export const MAX_RATE_TIMESPAN = 172_800n;
/** ChainlinkConversionPath reads fiat amounts with 8 decimals. */
export const FIAT_DECIMALS = 8;
const BPS = 10_000n;

/** One fiat-denominated request as a wallet pays it (amounts in the fiat's base units). */
export type ConversionLeg = PaymentLeg & { readonly invoiceCurrency: Currency };

export function isConversionLeg(leg: PaymentLeg): leg is ConversionLeg {
  return leg.invoiceCurrency !== undefined && leg.invoiceCurrency.id !== leg.currency.id;
}

/** What the chain said: the amount and fee in payment units, and when the oldest rate was set. */
export interface ConversionQuote {
  readonly converted: bigint;
  /** Unix seconds. */
  readonly rateTimestamp: bigint;
}

export interface ConversionCalldata extends SingleCalldata {
  readonly transactions: readonly EvmTransaction[];
  readonly metadata: SingleMetadata & {
    /** The most the wallet lets the proxy take (`requiredAmount` is the quote). */
    readonly maxToSpend: string;
    /** Payment currency per unit of the invoice currency, and when that rate was set. */
    readonly conversionRate: string;
    readonly rateTimestamp: string;
    readonly maxRateTimespan: number;
  };
}

/**
 * The largest fiat amount (with its fee) the proxies can convert, in their 8 decimals: the
 * feeds multiply it by rates of up to 36 digits of precision, which must stay within a uint256.
 * 10^30 whole units of any fiat, far beyond any invoice.
 */
export const MAX_PADDED_FIAT = 10n ** 38n;

/** A fiat amount in base units (2 decimals for USD, 0 for JPY) in the proxies' 8 decimals. */
export function padFiat(amount: bigint, currency: Currency): bigint {
  return amount * 10n ** BigInt(FIAT_DECIMALS - currency.decimals);
}

/**
 * Why an invoice amount can never be converted (a fiat one past `MAX_PADDED_FIAT`), as a field
 * error's message, or null. Refused when the request or link is made: taken, every `/pay` of
 * it would fail at the proxy's read, and those failures would count against the network.
 */
export function unconvertibleAmount(amount: bigint, invoice: Currency): string | null {
  if (!isFiat(invoice) || padFiat(amount, invoice) <= MAX_PADDED_FIAT) return null;
  return `must be at most ${formatAmount(MAX_PADDED_FIAT, FIAT_DECIMALS)} for an invoice in ${invoice.symbol}`;
}

/**
 * What a conversion leg asks the proxy to convert, in its 8 decimals: the amount (in the fiat's
 * base units) padded, and the fee, which the leg already counts in those 8 decimals.
 */
export function convertedTotal(leg: ConversionLeg): bigint {
  return padFiat(leg.amount, leg.invoiceCurrency) + leg.feeAmount;
}

/** The most the proxy may take: the quote plus the slippage margin, rounded up. */
export function maxToSpendOf(converted: bigint): bigint {
  return (converted * (BPS + CONVERSION_SLIPPAGE_BPS) + BPS - 1n) / BPS;
}

/** The leg's ChainlinkConversionPath path, or a 400 naming the route its network lacks. */
export function pathOf(deps: CalldataDeps, leg: ConversionLeg): Address[] {
  const path = conversionPath(deps.chains, leg.network.id, leg.invoiceCurrency, leg.currency);
  if (!path) {
    throw new AppError(
      'conversion_route_unavailable',
      `No conversion route from ${leg.invoiceCurrency.id} to ${leg.currency.id} on ${leg.network.id}`,
    );
  }
  return path.map((step) => getAddress(step));
}

/** A conversion contract of the leg's network, or a 400 when the network has none. */
function conversionContract(
  deps: CalldataDeps,
  leg: ConversionLeg,
  key: 'erc20' | 'eth' | 'path',
): Address {
  const contracts = deps.chains.contracts(leg.network.id);
  const address = {
    erc20: contracts.erc20ConversionProxy,
    eth: contracts.ethConversionProxy,
    path: contracts.chainlinkConversionPath,
  }[key];
  if (!address) {
    throw new AppError(
      'network_not_supported',
      `Conversion payments are not supported on ${leg.network.id}`,
    );
  }
  return getAddress(address);
}

/**
 * The read that quotes a leg: ChainlinkConversionPath's `getConversion` of its amount and fee
 * together (the proxy converts them one by one and rounds each down, so the sum's quote is
 * never below what it takes), answering `[converted, oldestRateTimestamp]`.
 */
export function quoteCall(deps: CalldataDeps, leg: ConversionLeg) {
  return {
    address: conversionContract(deps, leg, 'path'),
    abi: chainlinkConversionPathAbi,
    functionName: 'getConversion',
    args: [convertedTotal(leg), pathOf(deps, leg)],
  } as const;
}

/**
 * Calldata for a conversion leg, reading the rate (`getConversion`) with the payer's balance
 * and allowance of the conversion proxy in one `eth_call` (`readPayerState`), or alone without a
 * wallet.
 */
export async function buildConversionCalldata(
  deps: CalldataDeps,
  leg: ConversionLeg,
  payer: Payer,
): Promise<ConversionCalldata> {
  const native = isNative(leg.currency);
  const spender = conversionContract(deps, leg, native ? 'eth' : 'erc20');
  const conversion = quoteCall(deps, leg);
  const token = native ? null : getAddress(leg.currency.address);
  const read = await deps.clients.read(leg.network.id, async (client) => {
    if (!payer.wallet) {
      const [converted, rateTimestamp] = (await client.readContract(conversion)) as [
        bigint,
        bigint,
      ];
      return { quote: { converted, rateTimestamp }, funds: null };
    }
    const owner = getAddress(payer.wallet);
    const state = await readPayerState(client, multicallOf(deps, leg.network), {
      funder: getAddress(payer.eoaWallet ?? payer.wallet),
      owner,
      tokens: token ? [{ token, spender }] : [],
      extra: [conversion],
    });
    const [converted, rateTimestamp] = state.extra[0] as [bigint, bigint];
    const held = token ? state.tokens.get(token.toLowerCase()) : undefined;
    return {
      quote: { converted, rateTimestamp },
      funds: {
        ...(held ?? { balance: state.nativeBalance, allowance: null }),
        nativeBalance: state.nativeBalance,
        baseFee: state.baseFee,
      },
    };
  });
  return conversionCalldata(deps, leg, read.quote, read.funds);
}

/** What the payer holds: of the payment currency (and its allowance), and for gas. */
export interface ConversionFunds {
  readonly balance: bigint;
  /** Of the Erc20ConversionProxy; null for the native currency. */
  readonly allowance: bigint | null;
  readonly nativeBalance: bigint;
  readonly baseFee: bigint;
}

/**
 * The transactions for a quote (the part that reads nothing): the approval when the proxy may
 * not take `maxToSpend` yet (always without a wallet), then the payment.
 */
export function conversionCalldata(
  deps: CalldataDeps,
  leg: ConversionLeg,
  quote: ConversionQuote,
  funds: ConversionFunds | null,
): ConversionCalldata {
  const path = pathOf(deps, leg);
  const native = isNative(leg.currency);
  const chainId = leg.network.chainId;
  const maxToSpend = maxToSpendOf(quote.converted);
  const amount = padFiat(leg.amount, leg.invoiceCurrency);
  // Already in the proxies' 8 decimals: a fee finer than the fiat's cents is kept.
  const fee = leg.feeAmount;
  const feeAddress = getAddress(leg.feeAddress ?? '0x0000000000000000000000000000000000000000');
  const reference = referenceBytes(leg.paymentReference);
  const payment = native
    ? evmTransaction(
        conversionContract(deps, leg, 'eth'),
        ethConversionProxyAbi,
        'transferWithReferenceAndFee',
        [getAddress(leg.payee), amount, path, reference, fee, feeAddress, MAX_RATE_TIMESPAN],
        chainId,
        // The proxy sends the exact amount and gives the rest back.
        maxToSpend,
      )
    : evmTransaction(
        conversionContract(deps, leg, 'erc20'),
        erc20ConversionProxyAbi,
        'transferFromWithReferenceAndFee',
        [
          getAddress(leg.payee),
          amount,
          path,
          reference,
          fee,
          feeAddress,
          maxToSpend,
          MAX_RATE_TIMESPAN,
        ],
        chainId,
      );
  const allowance = funds?.allowance ?? 0n;
  const approve = (value: bigint) =>
    evmTransaction(
      getAddress(leg.currency.address),
      erc20Abi,
      'approve',
      [conversionContract(deps, leg, 'erc20'), value],
      chainId,
    );
  const approvals: EvmTransaction[] = [];
  if (!native && allowance < maxToSpend) {
    // What the proxy did not use of an earlier margin stays allowed: some tokens must be reset.
    if (allowance > 0n && RESETS_ALLOWANCE.has(leg.currency.id)) approvals.push(approve(0n));
    approvals.push(approve(maxToSpend));
  }
  const transactions = [...approvals, payment];
  const decimals = leg.currency.decimals;
  const steps = single(transactions, approvals.length, {
    requiredAmount: formatAmount(quote.converted, decimals),
    ...(funds && payerDetails(leg, funds, maxToSpend, approvals.length)),
  });
  return {
    ...steps,
    transactions,
    metadata: {
      ...steps.metadata,
      maxToSpend: formatAmount(maxToSpend, decimals),
      conversionRate: conversionRate(
        { amount: quote.converted, decimals: leg.currency.decimals },
        { amount: convertedTotal(leg), decimals: FIAT_DECIMALS },
      ),
      rateTimestamp: new Date(Number(quote.rateTimestamp) * 1000).toISOString(),
      maxRateTimespan: Number(MAX_RATE_TIMESPAN),
    },
  };
}

/** The payer's side of the metadata: balances against `maxToSpend`, and gas. */
function payerDetails(
  leg: ConversionLeg,
  funds: ConversionFunds,
  maxToSpend: bigint,
  approvals: number,
) {
  const native = isNative(leg.currency);
  const fees = networkFee(funds.baseFee, leg.network, { approvals, payment: 'conversion' });
  const decimals = leg.currency.decimals;
  return {
    hasEnoughBalance: funds.balance >= maxToSpend,
    hasEnoughAllowance: native || (funds.allowance ?? 0n) >= maxToSpend,
    // The native currency pays the value and the gas from the same balance.
    hasEnoughGas: funds.nativeBalance >= (native ? maxToSpend : 0n) + fees.limit,
    balance: formatAmount(funds.balance, decimals),
    ...(funds.allowance !== null && { allowance: formatAmount(funds.allowance, decimals) }),
    nativeBalance: formatAmount(funds.nativeBalance, leg.network.native.decimals),
    ...fees.display,
  };
}
