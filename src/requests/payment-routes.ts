import { getAddress } from 'viem';
import type { Network } from '../chains/networks.ts';
import { type LegRouteOption, legRouteOptions } from '../crosschain/leg-route.ts';
import { bridgeFeeOf } from '../crosschain/route-answer.ts';
import { formatAmount } from '../payments/amounts.ts';
import { checkPayer } from '../payments/payer.ts';
import {
  type ClientFee,
  feeUnits,
  type PayInput,
  payPlan,
  type RequestCalldataDeps,
} from './pay.ts';
import type { RequestRow } from './requests.ts';

/**
 * `GET /v2/request/{id}/routes` (api-facts §3.5): the ways a payer can pay a request. Clients
 * written for the reference (easy-invoice) load them before they show anything to pay with,
 * pick one, and ask `/pay` for it. First the direct route: the request's own token on its
 * own network, paid through Request's fee proxy; then one per source chain and token the
 * routing aggregator has a checked route from (`/pay` with that `chain` and `token` pays it,
 * from the same cached quote). A route's `fee` is what the payer pays on top of the amount, in
 * the route's token (the bridge's fee and the platform's, tokens of one peg at face value).
 */

/** The reference's id of the same-network route; `/pay` without `chain` and `token` pays it. */
export const DIRECT_ROUTE_ID = 'REQUEST_NETWORK_PAYMENT';

/** A route's `chain`: the routing aggregator's name where the network has one (`BASE`). */
function chainName(network: Network): string {
  return network.crossChainName ?? network.id.toUpperCase();
}

export async function paymentRoutes(
  deps: Pick<RequestCalldataDeps, 'chains' | 'clients' | 'routes'>,
  row: RequestRow,
  query: Pick<PayInput, 'wallet' | 'amount' | 'feePercentage' | 'feeAddress'>,
  client: ClientFee | null,
) {
  const { fee, leg } = payPlan(deps, row, query, client);
  // The payer is checked as `/pay` checks it: a route is one this wallet can take.
  const payer = checkPayer(leg.network, { wallet: query.wallet });
  // A fee is counted in what the request counts in: the fiat of a conversion request (to its
  // conversion's 8 decimals, finer than its cents).
  const counted = leg.invoiceCurrency ?? leg.currency;
  const feeAmount = formatAmount(fee?.amount ?? 0n, feeUnits(deps.chains, row).decimals);
  const feeBreakdown = fee
    ? [
        {
          type: 'platform' as const,
          stage: 'sending' as const,
          amount: feeAmount,
          // Exact only where the fee is counted in US dollars; unknown (left out) elsewhere.
          ...(counted.symbol === 'USD' && { amountInUSD: feeAmount }),
          currency: counted.symbol,
          receiverAddress: fee.address,
          network: leg.network.id,
        },
      ]
    : [];
  const bridged =
    deps.routes && payer.wallet !== undefined && leg.network.kind === 'evm'
      ? await legRouteOptions(
          { chains: deps.chains, clients: deps.clients, routes: deps.routes },
          { key: `request:${row.id}`, leg, feeCalls: [], wallet: getAddress(payer.wallet) },
        )
      : [];
  return {
    routes: [
      {
        id: DIRECT_ROUTE_ID,
        fee: Number(feeAmount),
        ...(counted.symbol === 'USD' && { feeInUSD: Number(feeAmount) }),
        feeBreakdown,
        speed: 'FAST' as const,
        price_impact: 0,
        chain: chainName(leg.network),
        token: leg.currency.symbol,
      },
      ...bridged.map((option) => crossChainRoute(option, feeBreakdown, Number(feeAmount))),
    ],
    ...(fee && { platformFee: { percentage: Number(fee.percentage), address: fee.address } }),
  };
}

/** A route from another chain: the bridge's fee first, then the request's own fees. */
function crossChainRoute<Fee>(
  option: LegRouteOption,
  requestFees: readonly Fee[],
  requestFee: number,
) {
  const { step } = option.route;
  const token = step.action.fromToken;
  const fee = bridgeFeeOf(step, getAddress(token.address));
  const amount = formatAmount(fee.amount, token.decimals);
  return {
    id: `${option.chain}_${option.token}`,
    fee: Number(amount) + requestFee,
    feeBreakdown: [
      {
        type: 'crosschain' as const,
        stage: 'sending' as const,
        provider: step.tool,
        amount,
        ...(fee.usd !== null && { amountInUSD: fee.usd }),
        currency: option.token,
        receiverAddress: getAddress(step.estimate.approvalAddress),
        network: option.network,
        rateProvider: 'lifi',
      },
      ...requestFees,
    ],
    speed: step.estimate.executionDuration,
    price_impact: 0,
    chain: option.chain,
    token: option.token,
  };
}
