import type { Network } from '../chains/networks.ts';
import { formatAmount } from '../payments/amounts.ts';
import type { CalldataDeps } from '../payments/calldata/shared.ts';
import { checkPayer } from '../payments/payer.ts';
import { type ClientFee, feeUnits, type PayInput, payPlan } from './pay.ts';
import type { RequestRow } from './requests.ts';

/**
 * `GET /v2/request/{id}/routes` (api-facts §3.5): the ways a payer can pay a request. Clients
 * written for the reference (easy-invoice) load them before they show anything to pay with,
 * pick one, and ask `/pay` for it. Ours is the direct route: the request's own token on its
 * own network, paid through Request's fee proxy; the cross-chain routes come with cross-chain
 * payments. A route's `fee` is what the payer pays on top of the amount, in the route's token.
 */

/** The reference's id of the same-network route; `/pay` without `chain` and `token` pays it. */
export const DIRECT_ROUTE_ID = 'REQUEST_NETWORK_PAYMENT';

/** A route's `chain`: the routing aggregator's name where the network has one (`BASE`). */
function chainName(network: Network): string {
  return network.crossChainName ?? network.id.toUpperCase();
}

export function paymentRoutes(
  deps: Pick<CalldataDeps, 'chains'>,
  row: RequestRow,
  query: Pick<PayInput, 'wallet' | 'amount' | 'feePercentage' | 'feeAddress'>,
  client: ClientFee | null,
) {
  const { fee, leg } = payPlan(deps, row, query, client);
  // The payer is checked as `/pay` checks it: a route is one this wallet can take.
  checkPayer(leg.network, { wallet: query.wallet });
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
    ],
    ...(fee && { platformFee: { percentage: Number(fee.percentage), address: fee.address } }),
  };
}
