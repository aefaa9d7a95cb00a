import { type Address, getAddress } from 'viem';
import { ValidationError } from '../../base/errors.ts';
import { type Currency, isNative } from '../../chains/currencies.ts';
import {
  BATCH_ERC20_CONVERSION,
  BATCH_ERC20_MULTI_TOKEN,
  BATCH_NATIVE,
  BATCH_NATIVE_CONVERSION,
  batchPaymentsAbi,
  erc20Abi,
} from '../abis.ts';
import {
  conversionRate,
  formatAmount,
  MAX_BASE_UNITS,
  TOTAL_TOO_LARGE_MESSAGE,
} from '../amounts.ts';
import { networkFee } from '../gas.ts';
import type { PayerState } from '../payer-state.ts';
import { type EvmTransaction, evmTransaction, type PaymentLeg } from '../transactions.ts';
import { batchFeeAddress } from './batch-fee-address.ts';
import { groupLegs, type Spend } from './batch-legs.ts';
import { type ConversionQuote, FIAT_DECIMALS, MAX_RATE_TIMESPAN } from './conversion.ts';
import type { CalldataDeps } from './shared.ts';

/** The batch fee is in basis points of the summed amounts (contracts.md §2.3). */
const BATCH_FEE_DENOMINATOR = 10_000n;

interface InsufficientToken {
  readonly tokenAddress: string;
  readonly tokenSymbol: string;
  readonly paymentCurrencyId: string;
  readonly required: string;
  readonly available: string;
}

/** What the batch takes of one payment currency: at today's rates, and at most. */
interface TokenSpend {
  readonly tokenAddress: string;
  readonly tokenSymbol: string;
  readonly paymentCurrencyId: string;
  readonly requiredAmount: string;
  /** What the approval (or, for the native currency, the value) lets the batch take. */
  readonly maxToSpend: string;
}

/** The rate one invoice currency is converted at into one payment currency. */
interface BatchConversion {
  readonly invoiceCurrency: string;
  readonly paymentCurrencyId: string;
  /** Payment currency per unit of the invoice currency. */
  readonly conversionRate: string;
  /** When the oldest rate of the path was set. */
  readonly rateTimestamp: string;
}

export interface BatchCalldata {
  readonly ERC20ApprovalTransactions: readonly EvmTransaction[];
  readonly batchPaymentTransaction: EvmTransaction;
  readonly metadata: {
    readonly hasEnoughBalance: boolean;
    readonly hasEnoughGas: boolean | null;
    readonly canMakePayment: boolean | null;
    readonly insufficientTokens: readonly InsufficientToken[];
    readonly spending: readonly TokenSpend[];
    readonly conversions?: readonly BatchConversion[];
    readonly maxRateTimespan?: number;
  };
}

/** What the builder read from the chain, in its one round trip. */
export interface BatchRead {
  readonly batchFeeBps: bigint;
  /** Per leg, in the legs' order: a conversion leg's quote, null for the others. */
  readonly quotes: readonly (ConversionQuote | null)[];
  /** Balances, allowances of the batch contract and the base fee; null without a wallet. */
  readonly state: PayerState | null;
  readonly payer: Address | null;
}

/**
 * The transactions for what was read (the part that reads nothing), encoded as Request's SDK
 * encodes a batch (`prepareBatchConversionPaymentTransaction` with `skipFeeUSDLimit`): ERC20
 * conversion requests under meta id 0 with their path, fiat amount and fee padded to 8
 * decimals, `maxToSpend` (the quote plus the slippage margin) and `MAX_RATE_TIMESPAN`; plain
 * ERC20 requests under id 2 with `path = [token]`; plain native ones under id 3; native
 * conversions under id 4, last as the contract requires; each group in the requests' order.
 *
 * The contract pulls each token's summed `maxToSpend` for the conversions, gives back what the
 * proxies did not take, and charges its batch fee on what they did; plain requests are pulled
 * exactly. So one approval per token covers the conversions' `maxToSpend` plus the plain
 * totals, each with its batch fee, and `value` does the same for the native currency.
 */
export function batchCalldata(
  deps: CalldataDeps,
  legs: readonly PaymentLeg[],
  batch: Address,
  read: BatchRead,
): BatchCalldata {
  const [first] = legs;
  if (!first) throw new Error('a batch needs at least one request');
  const network = first.network;
  const batchFee = (amount: bigint) => (amount * read.batchFeeBps) / BATCH_FEE_DENOMINATOR;

  const { spends, rates, groups } = groupLegs(deps, legs, read.quotes);

  // At most, and at today's rates; each part's batch fee as the contract computes it.
  const most = (s: Spend) =>
    fitsOneCall(s.plain + batchFee(s.plainAmounts) + s.capped + batchFee(s.capped));
  const atRate = (s: Spend) => s.plain + batchFee(s.plainAmounts) + s.quoted + batchFee(s.quoted);

  const state = read.state;
  const approvals: EvmTransaction[] = [];
  const insufficientTokens: InsufficientToken[] = [];
  const short = (currency: Currency, required: bigint, available: bigint) =>
    insufficientTokens.push({
      tokenAddress: addressOf(currency),
      tokenSymbol: currency.symbol,
      paymentCurrencyId: currency.id,
      required: formatAmount(required, currency.decimals),
      available: formatAmount(available, currency.decimals),
    });
  for (const spend of spends.values()) {
    if (isNative(spend.currency)) continue;
    const token = getAddress(spend.currency.address);
    const required = most(spend);
    const held = state?.tokens.get(token.toLowerCase());
    if (!held || held.allowance < required) {
      approvals.push(
        evmTransaction(token, erc20Abi, 'approve', [batch, required], network.chainId),
      );
    }
    if (held && held.balance < required) short(spend.currency, required, held.balance);
  }

  const nativeSpend = [...spends.values()].find((spend) => isNative(spend.currency));
  // The contract forwards amount + fee per plain native request, sends each native conversion
  // all it holds (the proxy gives back the rest), then takes its batch fee from what is left,
  // so the value carries all of it. (The SDK's value leaves the plain requests' fees out, which
  // the contract refuses with "Not enough funds" as soon as a request has a fee.)
  const value = nativeSpend ? most(nativeSpend) : 0n;
  const metaDetails = (
    [
      [BATCH_ERC20_CONVERSION, groups.erc20Conversion],
      [BATCH_ERC20_MULTI_TOKEN, groups.erc20],
      [BATCH_NATIVE, groups.native],
      [BATCH_NATIVE_CONVERSION, groups.nativeConversion],
    ] as const
  )
    .filter(([, details]) => details.length > 0)
    .map(([paymentNetworkId, requestDetails]) => ({ paymentNetworkId, requestDetails }));
  const batchPaymentTransaction = evmTransaction(
    batch,
    batchPaymentsAbi,
    'batchPayments',
    // No USD paths, as the SDK with `skipFeeUSDLimit`: with paths, a native entry would read
    // the contract's own native-to-USD path, which a fresh deployment leaves unset (revert).
    [metaDetails, [], batchFeeAddress(legs, read.payer)],
    network.chainId,
    value,
  );

  const spending = [...spends.values()].map((spend) => ({
    tokenAddress: addressOf(spend.currency),
    tokenSymbol: spend.currency.symbol,
    paymentCurrencyId: spend.currency.id,
    requiredAmount: formatAmount(atRate(spend), spend.currency.decimals),
    maxToSpend: formatAmount(most(spend), spend.currency.decimals),
  }));
  const conversions = [...rates.values()].map((rate) => ({
    invoiceCurrency: rate.invoice.id,
    paymentCurrencyId: rate.payment.id,
    conversionRate: conversionRate(
      { amount: rate.converted, decimals: rate.payment.decimals },
      { amount: rate.invoiced, decimals: FIAT_DECIMALS },
    ),
    rateTimestamp: new Date(Number(rate.rateTimestamp) * 1000).toISOString(),
  }));
  const converting =
    conversions.length > 0 ? { conversions, maxRateTimespan: Number(MAX_RATE_TIMESPAN) } : {};

  if (!state) {
    return {
      ERC20ApprovalTransactions: approvals,
      batchPaymentTransaction,
      metadata: {
        hasEnoughBalance: true,
        hasEnoughGas: null,
        canMakePayment: null,
        insufficientTokens,
        spending,
        ...converting,
      },
    };
  }
  if (nativeSpend && state.nativeBalance < value)
    short(nativeSpend.currency, value, state.nativeBalance);
  const fees = networkFee(state.baseFee, network, {
    approvals: approvals.length,
    payment: { batch: legs.length },
  });
  const hasEnoughBalance = insufficientTokens.length === 0;
  const hasEnoughGas = state.nativeBalance >= value + fees.limit;
  return {
    ERC20ApprovalTransactions: approvals,
    batchPaymentTransaction,
    metadata: {
      hasEnoughBalance,
      hasEnoughGas,
      canMakePayment: hasEnoughBalance && hasEnoughGas,
      insufficientTokens,
      spending,
      ...converting,
    },
  };
}

/** A token's checksummed address; the native currency's Request hash as the registry has it. */
function addressOf(currency: Currency): string {
  return isNative(currency) ? currency.address : getAddress(currency.address);
}

/** What one approval or one `value` carries must fit a uint256, or no contract can take it. */
function fitsOneCall(total: bigint): bigint {
  if (total > MAX_BASE_UNITS) {
    throw new ValidationError([{ field: 'requests', message: TOTAL_TOO_LARGE_MESSAGE }]);
  }
  return total;
}
