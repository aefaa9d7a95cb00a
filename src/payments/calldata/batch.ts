import { type Address, getAddress, zeroAddress } from 'viem';
import { isNative } from '../../chains/currencies.ts';
import { AppError } from '../../errors.ts';
import { BATCH_ERC20_MULTI_TOKEN, BATCH_NATIVE, batchPaymentsAbi, erc20Abi } from '../abis.ts';
import { formatAmount } from '../amounts.ts';
import { networkFee } from '../gas.ts';
import type { Payer } from '../payer.ts';
import { readPayerState } from '../payer-state.ts';
import { referenceBytes } from '../references.ts';
import { type EvmTransaction, evmTransaction, type PaymentLeg } from '../transactions.ts';
import type { CalldataDeps } from './shared.ts';

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
 * BatchConversionPayments. ERC20 requests go under meta id 2 (several tokens), native ones
 * under id 3, in that order. Each request still emits its own fee-proxy event, so detection
 * is the same as for single payments.
 */
export async function buildBatchCalldata(
  deps: CalldataDeps,
  legs: readonly PaymentLeg[],
  payer: Payer,
): Promise<BatchCalldata> {
  const [first] = legs;
  if (!first) throw new Error('a batch needs at least one request');
  const network = first.network;
  const contracts = deps.chains.contracts(network.id as never);
  if (network.kind !== 'evm' || !contracts.batchPayments || !contracts.multicall3) {
    throw new AppError('batch_not_supported', `Batch payments are not supported on ${network.id}`);
  }
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
    const required =
      entry.total + batchFee(tokenAmounts.reduce((sum, leg) => sum + leg.amount, 0n));
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
  const value =
    native.reduce((sum, leg) => sum + leg.amount + leg.feeAmount, 0n) + batchFee(nativeAmount);
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
    ...(native.length > 0
      ? [{ paymentNetworkId: BATCH_NATIVE, requestDetails: native.map((leg) => detail(leg, [])) }]
      : []),
  ];
  // The batch fee goes to the fee address; naming the payer keeps it with the payer.
  const feeAddress = owner ?? zeroAddress;
  const batchPaymentTransaction = evmTransaction(
    batch,
    batchPaymentsAbi,
    'batchPayments',
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
