import { type Address, getAddress, type Hex } from 'viem';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { erc20Abi } from '../payments/abis.ts';
import { formatAmount } from '../payments/amounts.ts';
import { multicallOf, RESETS_ALLOWANCE } from '../payments/calldata/shared.ts';
import { readPayerState } from '../payments/payer-state.ts';
import { evmTransaction } from '../payments/transactions.ts';
import { contractCallsOf, destinationTotal } from './destination-calls.ts';
import type { RoutedLeg } from './leg-route.ts';
import type { PaymentSource } from './payment-options-sources.ts';
import {
  APPROVE_GAS,
  bridgeFeeOf,
  bridgeTransaction,
  type CrossChainTransaction,
  PRIORITY_FEE_WEI,
  stepGasWei,
} from './route-answer.ts';

/**
 * Several legs paid from one source chain and token in one go (a multicall payout's children on
 * other networks): one route per leg, each checked on its own (quote-route.ts), and on the source
 * chain one approval per bridge contract for what all its deposits take together, then one
 * bridge call per leg exactly as the aggregator gave it. Each leg's destination call is the fee
 * proxy payment its route was proven to make (`destinationCall`). The metadata carries what a
 * multicall's cross-chain answer adds (api-facts §2.7): the source, the sums, the earliest
 * quote expiry and bridge deadline, and every step (`bridge.legs`).
 */

/** A leg of the answer: its route and whose it is (the child's position). */
export interface MultiRouteLeg extends RoutedLeg {
  readonly position: number;
  /** The leg's network id (`base`). */
  readonly network: string;
}

/** The call a leg's route makes on its network, as Variant C describes it. */
interface DestinationCall {
  readonly network: string;
  /** The aggregator's identifier of the destination chain (its chain id), from the quote. */
  readonly chain: string;
  readonly chainId: number;
  readonly target: Address;
  readonly contractAddress: Address;
  readonly calldata: Hex;
}

export interface MultiRouteAnswer {
  readonly approvals: readonly CrossChainTransaction[];
  readonly bridges: readonly CrossChainTransaction[];
  /** By the leg's position. */
  readonly destinationCalls: ReadonlyMap<number, DestinationCall>;
  readonly hasEnoughBalance: boolean;
  readonly hasEnoughGas: boolean;
  readonly metadata: Record<string, unknown>;
}

/** A child paid directly on the source chain, in the source token. */
export interface DirectPayment {
  readonly currency: { readonly id: string; readonly decimals: number };
  readonly amount: bigint;
}

export async function multiRouteAnswer(
  deps: { readonly chains: ChainRegistry; readonly clients: ChainClients },
  input: {
    readonly legs: readonly MultiRouteLeg[];
    readonly source: PaymentSource;
    readonly wallet: Address;
    /**
     * What the payer also pays directly on the source chain in the source token: each child
     * already there, in its currency (the source token), fee included, in base units.
     */
    readonly direct: readonly DirectPayment[];
  },
): Promise<MultiRouteAnswer> {
  const { legs, source, wallet } = input;
  const network = source.network;
  const chainId = network.chainId;
  const token = getAddress(source.currency.address);
  // What each bridge contract takes, all its deposits together, in the legs' order.
  const bySpender = new Map<Address, bigint>();
  for (const { route } of legs) {
    const spender = getAddress(route.step.estimate.approvalAddress);
    bySpender.set(spender, (bySpender.get(spender) ?? 0n) + BigInt(route.step.action.fromAmount));
  }
  const spenders = [...bySpender.keys()];
  const states = await Promise.all(
    spenders.map((spender) =>
      deps.clients.read(network.id, (client) =>
        readPayerState(client, multicallOf(deps, network), {
          funder: wallet,
          owner: wallet,
          tokens: [{ token, spender }],
        }),
      ),
    ),
  );
  const [state] = states;
  if (!state) throw new Error('a multi-route answer needs at least one leg');
  const approvals = spenders.flatMap((spender, index) => {
    const allowance = states[index]?.tokens.get(token.toLowerCase())?.allowance ?? 0n;
    const approve = (amount: bigint) => ({
      ...evmTransaction(token, erc20Abi, 'approve', [spender, amount], chainId),
      chainType: 'evm' as const,
    });
    // Always approved, even when the allowance covers it (api-facts §2.7), as one route's is.
    return [
      ...(allowance > 0n && RESETS_ALLOWANCE.has(source.currency.id) ? [approve(0n)] : []),
      approve(bySpender.get(spender) ?? 0n),
    ];
  });
  const bridges = legs.map(({ route }) => bridgeTransaction(route.step, chainId));
  const balance = state.tokens.get(token.toLowerCase())?.balance ?? 0n;
  const bridged = [...bySpender.values()].reduce((sum, amount) => sum + amount, 0n);
  const directSpend = input.direct.reduce((sum, payment) => sum + payment.amount, 0n);
  const spend = bridged + directSpend;

  const native = network.native;
  const approvalWei = APPROVE_GAS * BigInt(approvals.length) * (state.baseFee + PRIORITY_FEE_WEI);
  const paymentWei = legs.reduce((sum, { route }) => sum + stepGasWei(route.step), 0n);
  const enoughGasFor = (wei: bigint) => state.nativeBalance >= wei;
  const gasCost = (wei: bigint) => ({
    required: wei > 0n,
    currency: native.symbol,
    amountNative: formatAmount(wei, native.decimals),
    hasEnoughBalance: enoughGasFor(wei),
  });
  const units = (amount: bigint) => formatAmount(amount, source.currency.decimals);
  const fee = legs.reduce((sum, { route }) => sum + bridgeFeeOf(route.step, token).amount, 0n);
  const hasEnoughBalance = balance >= spend;
  const hasEnoughGas = enoughGasFor(approvalWei + paymentWei);
  const earliest = legs.reduce((first, leg) =>
    leg.route.executionDeadline < first.route.executionDeadline ? leg : first,
  );
  const fetchedAt = Math.min(...legs.map(({ route }) => route.fetchedAt.getTime()));
  // What every child of the answer receives, routed or paid directly, in its currency.
  const received = [
    ...legs.map(({ source: legSource, destination }) => ({
      currency: legSource.need.currency,
      amount: destinationTotal(destination),
    })),
    ...input.direct,
  ];
  const currencies = new Set(received.map(({ currency }) => currency.id));
  const paid = received.reduce((sum, { amount }) => sum + amount, 0n);
  const [first] = legs;
  const [firstReceived] = received;

  const destinationCalls = new Map(
    legs.map((leg) => {
      const [call] = contractCallsOf(leg.destination);
      if (!call) throw new Error('a destination pays at least its payee');
      const target = getAddress(call.toContractAddress);
      return [
        leg.position,
        {
          network: leg.network,
          chain: String(leg.route.step.action.toChainId),
          chainId: leg.destination.chainId,
          target,
          contractAddress: target,
          calldata: call.toContractCallData as Hex,
        },
      ] as const;
    }),
  );

  return {
    approvals,
    bridges,
    destinationCalls,
    hasEnoughBalance,
    hasEnoughGas,
    metadata: {
      routeType: 'crosschain' as const,
      sourceAmount: units(spend),
      bridgeSourceAmount: units(bridged),
      sourceSideAmount: units(directSpend),
      bridgeFeeAmount: units(fee),
      sourceToken: source.tokenKey,
      sourceTokenAddress: token,
      sourceNetwork: network.id,
      aggregateAllowance: units(bridged),
      feePlanCarried: false,
      requiredAmount: units(spend),
      balance: units(balance),
      nativeBalance: formatAmount(state.nativeBalance, native.decimals),
      estimatedNetworkFee: formatAmount(approvalWei + paymentWei, native.decimals),
      estimatedApprovalNetworkFee: formatAmount(approvalWei, native.decimals),
      estimatedPaymentNetworkFee: formatAmount(paymentWei, native.decimals),
      quoteFetchedAt: new Date(fetchedAt).toISOString(),
      quoteExpiresAt: Math.min(...legs.map(({ route }) => route.expiresAt)),
      executionDeadline: earliest.route.executionDeadline,
      executionDeadlineBreakdown: {
        bridge: {
          deadline: earliest.route.executionDeadline,
          source: earliest.route.deadlineSource,
        },
      },
      bridge: {
        tool: first?.route.step.tool ?? null,
        legs: legs.map(({ position, network: legNetwork, route }) => ({
          childPosition: position,
          network: legNetwork,
          sourceAmount: units(BigInt(route.step.action.fromAmount)),
          quoteExpiresAt: route.expiresAt,
          executionDeadline: route.executionDeadline,
          rawStep: route.step,
        })),
      },
      costBreakdown: {
        approvalFee: gasCost(approvalWei),
        paymentGasFee: gasCost(paymentWei),
        totalGasFee: gasCost(approvalWei + paymentWei),
        bridgeFee: {
          required: fee > 0n,
          currency: source.currency.symbol,
          amount: units(fee),
          hasEnoughBalance,
        },
        fundingStatus: {
          hasEnoughPaymentToken: hasEnoughBalance,
          hasEnoughApprovalGas: enoughGasFor(approvalWei),
          hasEnoughOverall: hasEnoughBalance && hasEnoughGas,
        },
        // Both totals cover every child the answer pays, routed or direct: what they receive
        // and all the payer spends for it. Amounts of several currencies (a network's token is
        // a currency of its own) do not add up: the totals are given for one only.
        ...(currencies.size === 1 &&
          firstReceived && {
            totals: {
              paymentAmount: formatAmount(paid, firstReceived.currency.decimals),
              paymentCurrency: firstReceived.currency.id,
              sourceAmount: units(spend),
            },
          }),
      },
    },
  };
}
