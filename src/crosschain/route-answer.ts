import type { LiFiStep } from '@lifi/types';
import { type Address, getAddress, type Hex, toHex } from 'viem';
import type { ChainClients } from '../chains/clients.ts';
import type { Currency } from '../chains/currencies.ts';
import type { Network } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { erc20Abi } from '../payments/abis.ts';
import { formatAmount } from '../payments/amounts.ts';
import { multicallOf, RESETS_ALLOWANCE } from '../payments/calldata/shared.ts';
import { readPayerState } from '../payments/payer-state.ts';
import { type EvmTransaction, evmTransaction } from '../payments/transactions.ts';
import type { QuotedRoute } from './quote-route.ts';

/**
 * A validated route as `/pay` answers it (Variant A, routeType `crosschain`): on the source
 * chain, the approval of the source token to the step's `approvalAddress` (always, even when
 * the allowance suffices: api-facts §2.7), then the bridge call exactly as the aggregator gave
 * it (`transactionRequest`); and the metadata of Request API 0.31.0 for a cross-chain route:
 * the source amount, when the quote was fetched and until when it holds, the bridge's
 * deadline, the step itself (`rawStep`, for `refresh-step-transaction`) and the costs, read
 * against the payer's balances on the source chain.
 */

/** Gas an ERC-20 `approve` takes, and the tip over the base fee assumed per gas. */
export const APPROVE_GAS = 65_000n;
export const PRIORITY_FEE_WEI = 1_000_000_000n;

export interface RouteAnswerInput {
  readonly route: QuotedRoute;
  readonly sourceNetwork: Network;
  readonly sourceCurrency: Currency;
  readonly wallet: Address;
  /** What the destination calls take, in base units of `linkCurrency`. */
  readonly paymentAmount: bigint;
  readonly linkCurrency: Currency;
}

interface GasCost {
  readonly required: boolean;
  readonly currency: string;
  readonly amountNative: string;
  readonly hasEnoughBalance: boolean;
}

export type CrossChainTransaction = EvmTransaction & { readonly chainType: 'evm' };

export interface CrossChainCalldata {
  readonly paymentType: 'single';
  readonly transactions: readonly CrossChainTransaction[];
  /** The link's fee legs are described by its caller, who knows the plan. */
  readonly feeBundle: null;
  readonly metadata: Record<string, unknown> & { readonly routeType: 'crosschain' };
}

/** Wei of the step's own gas estimate for its transaction (the bridge call). */
export function stepGasWei(step: LiFiStep): bigint {
  return (step.estimate.gasCosts ?? []).reduce((sum, cost) => sum + BigInt(cost.amount), 0n);
}

/** The bridge's fee in the source token, in its base units (fees in other tokens aside). */
export function bridgeFeeOf(
  step: LiFiStep,
  token: Address,
): { amount: bigint; usd: string | null } {
  let amount = 0n;
  let usd = 0;
  let priced = false;
  for (const cost of step.estimate.feeCosts ?? []) {
    if (cost.token.address.toLowerCase() !== token.toLowerCase()) continue;
    amount += BigInt(cost.amount);
    if (cost.amountUSD !== undefined) {
      usd += Number(cost.amountUSD);
      priced = true;
    }
  }
  return { amount, usd: priced ? usd.toFixed(2) : null };
}

export function bridgeTransaction(step: LiFiStep, chainId: number): CrossChainTransaction {
  const tx = step.transactionRequest;
  if (!tx?.to || !tx.data) throw new Error('a validated step has its transactionRequest');
  return {
    to: getAddress(tx.to),
    data: tx.data as Hex,
    value: toHex(BigInt(tx.value ?? 0)),
    chainId,
    chainType: 'evm',
  };
}

export async function crossChainAnswer(
  deps: { readonly chains: ChainRegistry; readonly clients: ChainClients },
  input: RouteAnswerInput,
): Promise<CrossChainCalldata> {
  const { route, sourceNetwork, sourceCurrency, wallet } = input;
  const { step } = route;
  const chainId = sourceNetwork.chainId;
  const token = getAddress(sourceCurrency.address);
  const spender = getAddress(step.estimate.approvalAddress);
  const sourceAmount = BigInt(step.action.fromAmount);
  const state = await deps.clients.read(sourceNetwork.id, (client) =>
    readPayerState(client, multicallOf(deps, sourceNetwork), {
      funder: wallet,
      owner: wallet,
      tokens: [{ token, spender }],
    }),
  );
  const { balance, allowance } = state.tokens.get(token.toLowerCase()) ?? {
    balance: 0n,
    allowance: 0n,
  };
  const approve = (amount: bigint) =>
    evmTransaction(token, erc20Abi, 'approve', [spender, amount], chainId);
  const approvals = [
    ...(allowance > 0n && RESETS_ALLOWANCE.has(sourceCurrency.id) ? [approve(0n)] : []),
    approve(sourceAmount),
  ].map((tx) => ({ ...tx, chainType: 'evm' as const }));

  const native = sourceNetwork.native;
  const approvalWei = APPROVE_GAS * BigInt(approvals.length) * (state.baseFee + PRIORITY_FEE_WEI);
  const paymentWei = stepGasWei(step);
  const enoughGasFor = (wei: bigint) => state.nativeBalance >= wei;
  const gasCost = (wei: bigint): GasCost => ({
    required: wei > 0n,
    currency: native.symbol,
    amountNative: formatAmount(wei, native.decimals),
    hasEnoughBalance: enoughGasFor(wei),
  });
  const units = (amount: bigint) => formatAmount(amount, sourceCurrency.decimals);
  const fee = bridgeFeeOf(step, token);
  const hasEnoughBalance = balance >= sourceAmount;
  const hasEnoughGas = enoughGasFor(approvalWei + paymentWei);

  return {
    paymentType: 'single',
    transactions: [...approvals, bridgeTransaction(step, chainId)],
    feeBundle: null,
    metadata: {
      stepsRequired: approvals.length + 1,
      needsApproval: true,
      approvalTransactionIndex: 0,
      approvalTransactionsCount: approvals.length,
      paymentTransactionIndex: approvals.length,
      transactionSponsorshipFeeUsd: null,
      routeType: 'crosschain',
      requiredAmount: units(sourceAmount),
      sourceAmount: units(sourceAmount),
      hasEnoughBalance,
      hasEnoughAllowance: allowance >= sourceAmount,
      hasEnoughGas,
      balance: units(balance),
      allowance: units(allowance),
      nativeBalance: formatAmount(state.nativeBalance, native.decimals),
      estimatedNetworkFee: formatAmount(approvalWei + paymentWei, native.decimals),
      estimatedApprovalNetworkFee: formatAmount(approvalWei, native.decimals),
      estimatedPaymentNetworkFee: formatAmount(paymentWei, native.decimals),
      quoteFetchedAt: route.fetchedAt.toISOString(),
      quoteExpiresAt: route.expiresAt,
      executionDeadline: route.executionDeadline,
      executionDeadlineBreakdown: {
        bridge: { deadline: route.executionDeadline, source: route.deadlineSource },
      },
      rawStep: step,
      costBreakdown: {
        approvalFee: gasCost(approvalWei),
        paymentGasFee: gasCost(paymentWei),
        totalGasFee: gasCost(approvalWei + paymentWei),
        bridgeFee: {
          required: fee.amount > 0n,
          currency: sourceCurrency.symbol,
          amount: units(fee.amount),
          ...(fee.usd !== null && { amountUsd: fee.usd }),
          hasEnoughBalance,
        },
        fundingStatus: {
          hasEnoughPaymentToken: hasEnoughBalance,
          hasEnoughApprovalGas: enoughGasFor(approvalWei),
          hasEnoughOverall: hasEnoughBalance && hasEnoughGas,
        },
        totals: {
          paymentAmount: formatAmount(input.paymentAmount, input.linkCurrency.decimals),
          paymentCurrency: input.linkCurrency.id,
          sourceAmount: units(sourceAmount),
        },
      },
    },
  };
}

/** What `refresh-step-transaction` answers: the fresh transaction, and the route around it. */
export interface RefreshedStep {
  readonly transactionRequest: Record<string, unknown>;
  readonly rawStep: LiFiStep;
  readonly quoteFetchedAt: string;
  readonly quoteExpiresAt: number;
  readonly executionDeadline: number;
  readonly executionDeadlineBreakdown: {
    readonly bridge: { readonly deadline: number; readonly source: 'decoded' | 'fallback' };
  };
}

export function refreshedStep(route: QuotedRoute): RefreshedStep {
  return {
    transactionRequest: { ...route.step.transactionRequest },
    rawStep: route.step,
    quoteFetchedAt: route.fetchedAt.toISOString(),
    quoteExpiresAt: route.expiresAt,
    executionDeadline: route.executionDeadline,
    executionDeadlineBreakdown: {
      bridge: { deadline: route.executionDeadline, source: route.deadlineSource },
    },
  };
}
