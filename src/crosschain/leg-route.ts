import { type Address, getAddress, zeroAddress } from 'viem';
import { AppError } from '../base/errors.ts';
import type { ChainClients } from '../chains/clients.ts';
import { isNative } from '../chains/currencies.ts';
import type { NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { FeeLegCall } from '../payments/calldata/shared.ts';
import { referenceBytes } from '../payments/references.ts';
import type { PaymentLeg } from '../payments/transactions.ts';
import { type Destination, destinationTotal } from './destination-calls.ts';
import { type PaymentSource, paymentSources } from './payment-options-sources.ts';
import type { QuotedRoute, RouteQuoter } from './quote-route.ts';
import { type CrossChainCalldata, crossChainAnswer } from './route-answer.ts';

/**
 * One payment leg (a link's or a request's) paid from another chain: which sources it may be
 * paid from (those `paymentOptions` offers), what the route must pay on its network, and the
 * answer. Its callers decide which legs and payers may (secure-payments/link-crosschain.ts,
 * requests/pay.ts); `what` names the leg's owner in messages (`link`, `request`).
 */

export interface LegRouteDeps {
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  /** Routes through the aggregator, one quoter (and cache) per process. */
  readonly routes: RouteQuoter;
}

const refuse = (message: string) => new AppError('crosschain_unavailable', message);

/**
 * What a route must pay on the leg's network: its payment through our fee proxy (with the
 * leg's own fee), then each fee leg under its own reference.
 */
export function legDestination(
  chains: ChainRegistry,
  leg: PaymentLeg,
  feeCalls: readonly FeeLegCall[],
): Destination {
  const feeProxy = chains.contracts(leg.network.id).erc20FeeProxy;
  if (!feeProxy) throw refuse(`No fee proxy is deployed on ${leg.network.id}`);
  return {
    chainId: leg.network.chainId,
    feeProxy: getAddress(feeProxy),
    token: getAddress(leg.currency.address),
    payments: [
      {
        payee: getAddress(leg.payee),
        amount: leg.amount,
        reference: referenceBytes(leg.paymentReference),
        feeAmount: leg.feeAmount,
        feeAddress: leg.feeAddress ? getAddress(leg.feeAddress) : zeroAddress,
      },
      ...feeCalls.map((fee) => ({
        payee: getAddress(fee.recipient),
        amount: fee.amount,
        reference: referenceBytes(fee.paymentReference),
        feeAmount: 0n,
        feeAddress: zeroAddress,
      })),
    ],
  };
}

/** A leg's checked route from the source asked for, with where it starts and what it pays. */
export interface RoutedLeg {
  readonly source: PaymentSource;
  readonly destination: Destination;
  readonly route: QuotedRoute;
}

/** What routing one leg takes: whose it is, the leg, its fee legs, the payer and its source. */
export interface LegRouteInput {
  /** Whose leg, for the route cache: a link's or a request's id. */
  readonly key: string;
  readonly what: 'link' | 'request';
  readonly leg: PaymentLeg;
  readonly feeCalls: readonly FeeLegCall[];
  readonly wallet: Address;
  readonly chain: string;
  readonly token: string;
}

/**
 * The source `chain` and `token` name for this leg, as `paymentOptions` offers it; refused with
 * 400 `crosschain_unavailable` where the leg cannot be paid from there: a Tron leg, one written
 * in fiat or paid in a native currency, a source not offered. Also what a recorded transfer's
 * source is held to (secure-payments/bridge-intent.ts).
 */
export function legSource(
  deps: Pick<LegRouteDeps, 'chains' | 'clients'>,
  leg: PaymentLeg,
  what: 'link' | 'request',
  chain: string,
  token: string,
): PaymentSource {
  if (leg.network.kind !== 'evm') {
    throw refuse(
      `Tron ${what}s are paid on Tron only: send neither chain nor token (cross-chain routes start and end on EVM networks)`,
    );
  }
  if (leg.invoiceCurrency !== undefined) {
    throw refuse(
      `Cross-chain payment needs a ${what} in a token; this one is written in ${leg.invoiceCurrency.id}`,
    );
  }
  if (isNative(leg.currency)) {
    throw refuse(
      `Cross-chain payment needs a ${what} in a token; this one is paid in ${leg.currency.id}`,
    );
  }
  const reachable = (network: NetworkId) =>
    deps.clients.configured(network) && deps.chains.contracts(network).multicall3 !== null;
  const need = { network: leg.network, currency: leg.currency, amount: leg.amount };
  const source = paymentSources(deps.chains, reachable, [need]).find(
    (candidate) => candidate.chainKey === chain && candidate.tokenKey === token,
  );
  if (!source) {
    throw refuse(
      `This ${what} (${leg.currency.id}) cannot be paid from ${chain} ${token} on this server; its paymentOptions list the sources it can`,
    );
  }
  return source;
}

/**
 * The leg's route from the source named, checked (quote-route.ts), or null when the source is
 * the leg's own currency on its own network (nothing to bridge: it is paid directly).
 */
export async function legRoute(
  deps: LegRouteDeps,
  input: LegRouteInput,
): Promise<RoutedLeg | null> {
  const { leg } = input;
  const source = legSource(deps, leg, input.what, input.chain, input.token);
  if (source.exact) return null;
  const destination = legDestination(deps.chains, leg, input.feeCalls);
  const route = await deps.routes.quote(
    input.key,
    {
      chainId: source.network.chainId,
      token: getAddress(source.currency.address),
      wallet: input.wallet,
      chainKey: source.chainKey,
      tokenKey: source.tokenKey,
    },
    destination,
  );
  return { source, destination, route };
}

/**
 * The cross-chain answer for a leg, or null when the source named is the leg's own currency
 * on its own network (nothing to bridge: the same-chain answer serves).
 */
export async function legCrossChainCalldata(
  deps: LegRouteDeps,
  input: LegRouteInput,
): Promise<CrossChainCalldata | null> {
  const routed = await legRoute(deps, input);
  if (!routed) return null;
  const answer = await crossChainAnswer(deps, {
    route: routed.route,
    sourceNetwork: routed.source.network,
    sourceCurrency: routed.source.currency,
    wallet: input.wallet,
    paymentAmount: destinationTotal(routed.destination),
    linkCurrency: input.leg.currency,
  });
  // The payer's balances were read meanwhile: the route may have run out of time.
  deps.routes.assertUnexpired(routed.route);
  return answer;
}

/** A source a leg can be paid from, with its checked route. */
export interface LegRouteOption {
  /** The answer's names (`ARBITRUM`, `USDT`). */
  readonly chain: string;
  readonly token: string;
  readonly network: NetworkId;
  readonly route: QuotedRoute;
}

/**
 * Every source other than the leg's own, each with its route, asked at once: a source the
 * aggregator has no route from, or whose route fails the check, or that does not answer
 * (the breaker open, the aggregator down), is left out rather than failing the list. Empty for
 * a leg that cannot be paid cross-chain (Tron, fiat, a native currency).
 */
export async function legRouteOptions(
  deps: LegRouteDeps,
  input: {
    readonly key: string;
    readonly leg: PaymentLeg;
    readonly feeCalls: readonly FeeLegCall[];
    readonly wallet: Address;
  },
): Promise<LegRouteOption[]> {
  const { leg } = input;
  if (leg.network.kind !== 'evm' || leg.invoiceCurrency !== undefined || isNative(leg.currency)) {
    return [];
  }
  const reachable = (network: NetworkId) =>
    deps.clients.configured(network) && deps.chains.contracts(network).multicall3 !== null;
  const need = { network: leg.network, currency: leg.currency, amount: leg.amount };
  const sources = paymentSources(deps.chains, reachable, [need]).filter((s) => !s.exact);
  if (sources.length === 0) return [];
  const destination = legDestination(deps.chains, leg, input.feeCalls);
  const quoted = await Promise.all(
    sources.map(async (source): Promise<LegRouteOption | null> => {
      try {
        const route = await deps.routes.quote(
          input.key,
          {
            chainId: source.network.chainId,
            token: getAddress(source.currency.address),
            wallet: input.wallet,
            chainKey: source.chainKey,
            tokenKey: source.tokenKey,
          },
          destination,
        );
        return {
          chain: source.chainKey,
          token: source.tokenKey,
          network: source.network.id,
          route,
        };
      } catch (error) {
        if (error instanceof AppError) return null;
        throw error;
      }
    }),
  );
  return quoted.filter((option) => option !== null);
}
