import { type Address, getAddress, zeroAddress } from 'viem';
import { isNative } from '../../chains/currencies.ts';
import { AppError, featureUnavailable, ValidationError } from '../../errors.ts';
import { BATCH_ERC20_MULTI_TOKEN, BATCH_NATIVE, batchPaymentsAbi, erc20Abi } from '../abis.ts';
import { formatAmount, MAX_BASE_UNITS, TOTAL_TOO_LARGE_MESSAGE } from '../amounts.ts';
import { networkFee } from '../gas.ts';
import type { Payer } from '../payer.ts';
import { readPayerState } from '../payer-state.ts';
import { referenceBytes } from '../references.ts';
import { type EvmTransaction, evmForm, evmTransaction, type PaymentLeg } from '../transactions.ts';
import { isConversionLeg } from './conversion.ts';
import type { CalldataDeps } from './shared.ts';

export const TRON_BATCH_MESSAGE =
  'Batch payments are not supported for TRON networks. Please submit individual payment requests.';
export const SAME_NETWORK_MESSAGE = 'All requests must be on the same network';

/**
 * A batch's rule on networks: one network, and not Tron (whose batch contract only multicall
 * payouts use). A one-item "batch" is a single payment, so Tron is refused there only when
 * `tronAlone` says the caller asked for a batch in so many words.
 */
export function checkBatchNetworks(
  networks: readonly string[],
  options: { tronAlone?: boolean } = {},
): void {
  if ((networks.length > 1 || options.tronAlone) && networks.includes('tron')) {
    throw new AppError('tron_batch_not_supported', TRON_BATCH_MESSAGE);
  }
  if (new Set(networks).size > 1) throw new AppError('mixed_networks', SAME_NETWORK_MESSAGE);
}

/** The batch fee is in basis points of the summed amounts (contracts.md §2.3). */
const BATCH_FEE_DENOMINATOR = 10_000n;

export interface InsufficientToken {
  readonly tokenAddress: string;
  readonly tokenSymbol: string;
  readonly paymentCurrencyId: string;
  readonly required: string;
  readonly available: string;
}

export interface BatchCalldata {
  readonly ERC20ApprovalTransactions: readonly EvmTransaction[];
  readonly batchPaymentTransaction: EvmTransaction;
  readonly metadata: {
    readonly hasEnoughBalance: boolean;
    readonly hasEnoughGas: boolean | null;
    readonly canMakePayment: boolean | null;
    readonly insufficientTokens: readonly InsufficientToken[];
  };
}

interface TokenTotal {
  readonly leg: PaymentLeg;
  readonly token: Address;
  total: bigint;
}

/**
 * Calldata for several requests on one EVM network (Variant B): an approval of the batch
 * contract per token whose allowance is short, then one `batchPayments` call on
 * BatchConversionPayments, encoded byte for byte as Request's SDK encodes it
 * (`prepareBatchConversionPaymentTransaction` with `skipFeeUSDLimit`): ERC20 requests under
 * meta id 2 with `path = [token]`, native ones under id 3 with `path = [native currency hash]`,
 * in that order, each group in the requests' order; no USD paths; the requests' fee address
 * (`batchFeeAddress`). Each request still emits its own fee-proxy event, so detection is the
 * same as for single payments.
 */
export async function buildBatchCalldata(
  deps: CalldataDeps,
  legs: readonly PaymentLeg[],
  payer: Payer,
): Promise<BatchCalldata> {
  const [first] = legs;
  if (!first) throw new Error('a batch needs at least one request');
  const network = first.network;
  if (legs.some((leg) => leg.network.id !== network.id)) {
    throw new AppError('mixed_networks', SAME_NETWORK_MESSAGE);
  }
  const contracts = deps.chains.contracts(network.id as never);
  if (network.kind !== 'evm' || !contracts.batchPayments || !contracts.multicall3) {
    throw new AppError('batch_not_supported', `Batch payments are not supported on ${network.id}`);
  }
  if (legs.some(isConversionLeg))
    throw featureUnavailable('Fiat-denominated requests in a batch (paid with conversion)');
  const batch = getAddress(contracts.batchPayments);
  const multicall3 = getAddress(contracts.multicall3);
  const erc20 = legs.filter((leg) => !isNative(leg.currency));
  const native = legs.filter((leg) => isNative(leg.currency));

  const totals = new Map<string, TokenTotal>();
  for (const leg of erc20) {
    const token = getAddress(leg.currency.address);
    const entry = totals.get(token) ?? { leg, token, total: 0n };
    entry.total += leg.amount + leg.feeAmount;
    totals.set(token, entry);
  }

  const owner = payer.wallet ? getAddress(payer.wallet) : null;
  const funder = payer.eoaWallet ? getAddress(payer.eoaWallet) : owner;
  const state =
    owner && funder
      ? await deps.clients.read(network.id as never, (client) =>
          readPayerState(client, multicall3, {
            funder,
            owner,
            tokens: [...totals.values()].map(({ token }) => ({ token, spender: batch })),
            extra: [{ address: batch, abi: batchPaymentsAbi, functionName: 'batchFee' }],
          }),
        )
      : null;
  const batchFeeBps = BigInt((state?.extra[0] as number | undefined) ?? 0);
  const batchFee = (amount: bigint) => (amount * batchFeeBps) / BATCH_FEE_DENOMINATOR;

  const approvals: EvmTransaction[] = [];
  const insufficientTokens: InsufficientToken[] = [];
  for (const entry of totals.values()) {
    const tokenAmounts = erc20.filter((leg) => getAddress(leg.currency.address) === entry.token);
    const required = fitsOneCall(
      entry.total + batchFee(tokenAmounts.reduce((sum, leg) => sum + leg.amount, 0n)),
    );
    const tokenState = state?.tokens.get(entry.token.toLowerCase());
    if (!tokenState || tokenState.allowance < required) {
      approvals.push(
        evmTransaction(entry.token, erc20Abi, 'approve', [batch, required], network.chainId),
      );
    }
    if (tokenState && tokenState.balance < required) {
      insufficientTokens.push({
        tokenAddress: entry.token,
        tokenSymbol: entry.leg.currency.symbol,
        paymentCurrencyId: entry.leg.currency.id,
        required: formatAmount(required, entry.leg.currency.decimals),
        available: formatAmount(tokenState.balance, entry.leg.currency.decimals),
      });
    }
  }

  const nativeAmount = native.reduce((sum, leg) => sum + leg.amount, 0n);
  // The contract forwards amount + fee per native request and then takes its batch fee from
  // what is left, so the value carries all three. (The SDK's value counts the amounts only,
  // which the contract refuses with "Not enough funds" as soon as a request has a fee.)
  const value = fitsOneCall(
    native.reduce((sum, leg) => sum + leg.amount + leg.feeAmount, 0n) + batchFee(nativeAmount),
  );
  const detail = (leg: PaymentLeg, path: readonly Address[]) => ({
    recipient: getAddress(leg.payee),
    requestAmount: leg.amount,
    path,
    paymentReference: referenceBytes(leg.paymentReference),
    feeAmount: leg.feeAmount,
    maxToSpend: 0n,
    maxRateTimespan: 0n,
  });
  const metaDetails = [
    ...(erc20.length > 0
      ? [
          {
            paymentNetworkId: BATCH_ERC20_MULTI_TOKEN,
            requestDetails: erc20.map((leg) => detail(leg, [getAddress(leg.currency.address)])),
          },
        ]
      : []),
    // The contract never reads a native entry's path; the SDK puts the native currency's
    // Request hash there (our native currencies' address), and so do we, for the same bytes.
    ...(native.length > 0
      ? [
          {
            paymentNetworkId: BATCH_NATIVE,
            requestDetails: native.map((leg) => detail(leg, [getAddress(leg.currency.address)])),
          },
        ]
      : []),
  ];
  const feeAddress = batchFeeAddress(legs, owner);
  const batchPaymentTransaction = evmTransaction(
    batch,
    batchPaymentsAbi,
    'batchPayments',
    // No USD paths, as the SDK with `skipFeeUSDLimit`: with paths, a native entry would read
    // the contract's own native-to-USD path, which a fresh deployment leaves unset (revert).
    [metaDetails, [], feeAddress],
    network.chainId,
    value,
  );

  if (!state) {
    return {
      ERC20ApprovalTransactions: approvals,
      batchPaymentTransaction,
      metadata: {
        hasEnoughBalance: true,
        hasEnoughGas: null,
        canMakePayment: null,
        insufficientTokens,
      },
    };
  }
  if (state.nativeBalance < value) {
    const currency = deps.chains.nativeCurrency(network.id as never);
    insufficientTokens.push({
      tokenAddress: currency.address,
      tokenSymbol: currency.symbol,
      paymentCurrencyId: currency.id,
      required: formatAmount(value, currency.decimals),
      available: formatAmount(state.nativeBalance, currency.decimals),
    });
  }
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
    },
  };
}

/**
 * The batch's one `feeAddress`. BatchConversionPayments pays every request's fee, and its own
 * batch fee, to that single address, so requests whose fees go to different addresses cannot
 * share a batch: refused rather than paying one party's fee to another. When they agree it is
 * their fee address, as Request's SDK names it (the SDK takes the first request's, which is the
 * same address whenever the requests agree). When no request names one, the SDK names the zero
 * address: kept for native-only batches (their batch fee is sent as value, which the zero
 * address takes), but a batch with ERC20 requests would then revert, since the contract's
 * batch-fee `transferFrom(payer, 0x0, fee)` runs even for 0 and USDC and OpenZeppelin's ERC20
 * refuse the zero address. There the payer is named (the batch fee, if any, stays with them),
 * or, with no wallet given, the first request's payee: a party of the payment, never 0x0.
 */
export function batchFeeAddress(legs: readonly PaymentLeg[], payer: Address | null): Address {
  const charged = legs.filter((leg) => leg.feeAmount > 0n);
  const targets = new Set(charged.map((leg) => leg.feeAddress?.toLowerCase() ?? null));
  if (targets.size > 1) {
    throw new AppError(
      'batch_fee_addresses_differ',
      'Requests whose fees go to different addresses cannot be paid in one batch',
    );
  }
  const named = charged[0]?.feeAddress ?? legs.find((leg) => leg.feeAddress)?.feeAddress;
  if (named) return getAddress(named);
  const [first] = legs;
  if (!first || legs.every((leg) => isNative(leg.currency))) return zeroAddress;
  return payer ?? evmForm(first.payee);
}

/** What one approval or one `value` carries must fit a uint256, or no contract can take it. */
function fitsOneCall(total: bigint): bigint {
  if (total > MAX_BASE_UNITS) {
    throw new ValidationError([{ field: 'requests', message: TOTAL_TOO_LARGE_MESSAGE }]);
  }
  return total;
}
