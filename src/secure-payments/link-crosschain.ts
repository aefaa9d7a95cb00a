import { getAddress, zeroAddress } from 'viem';
import { AppError, ValidationError } from '../base/errors.ts';
import type { ChainClients } from '../chains/clients.ts';
import { isNative } from '../chains/currencies.ts';
import type { NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { type Destination, destinationTotal } from '../crosschain/destination-calls.ts';
import { paymentSources } from '../crosschain/payment-options-sources.ts';
import type { RouteQuoter } from '../crosschain/quote-route.ts';
import { type CrossChainCalldata, crossChainAnswer } from '../crosschain/route-answer.ts';
import type { PayableFees } from '../fees/bundle.ts';
import type { Payer } from '../payments/payer.ts';
import { referenceBytes } from '../payments/references.ts';
import type { PaymentLeg } from '../payments/transactions.ts';
import type { Link } from './links.ts';

/**
 * `/pay?chain=&token=` (and `/calldata` with them) on a link: the payer pays from another
 * chain through the routing aggregator (src/crosschain/), and the route's last leg pays the
 * link on its own network through our fee proxy, under its payment reference, then each fee
 * leg under its own. What this file decides is which links and payers may: one request in a
 * token (not Tron, not a batch or a multicall, not a fiat amount or a native currency), a
 * `wallet` that sends the source transaction itself, and a source chain and token that
 * `paymentOptions` offers for the link.
 */

export interface CrossChainDeps {
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  /** Routes through the aggregator, one quoter (and cache) per process. */
  readonly routes: RouteQuoter;
}

export interface CrossChainQuery {
  readonly chain: string;
  readonly token: string;
}

const refuse = (message: string) => new AppError('crosschain_unavailable', message);

/** Checked before the payer's wallet is read against the link's network. */
export function assertNotTron(link: Link): void {
  if (link.row.network === 'tron') {
    throw refuse(
      'Tron links are paid on Tron only: send neither chain nor token (cross-chain routes start and end on EVM networks)',
    );
  }
}

/** A multicall parent's children are routed one by one (`evm_cross_chain`, not built yet). */
export function assertNotMulticall(link: Link): void {
  if (link.children) {
    throw refuse(
      'Cross-chain payment of a multicall payout is not available yet; pay it on its network',
    );
  }
}

/** A batch link's legs are paid together, on its network. */
export function assertOneLeg(legs: readonly PaymentLeg[]): void {
  if (legs.length > 1) {
    throw refuse('Cross-chain payment of a batch link is not available yet; pay it on its network');
  }
}

/** Refusals that need nothing but the link and the payer's inputs, before any leg is built. */
export function assertCrossChainPayable(link: Link, payer: Payer, isSafe: boolean): void {
  assertNotMulticall(link);
  if (isSafe) {
    throw new AppError('safe_not_supported', 'Multisig (Safe) payments cannot be paid cross-chain');
  }
  if (payer.eoaWallet !== undefined) {
    throw refuse('A smart account cannot pay cross-chain yet: send the paying wallet alone');
  }
  if (payer.wallet === undefined) {
    throw new ValidationError([
      {
        field: 'wallet',
        message: 'is required with chain and token (the wallet that pays on the source chain)',
      },
    ]);
  }
}

/**
 * What a route must pay on the link's network: the leg's payment through our fee proxy, then
 * each of its unpaid fee legs under its own reference.
 */
export function linkDestination(
  deps: Pick<CrossChainDeps, 'chains'>,
  leg: PaymentLeg,
  fees: PayableFees | undefined,
): Destination {
  const feeProxy = deps.chains.contracts(leg.network.id).erc20FeeProxy;
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
      ...(fees?.calls ?? []).map((fee) => ({
        payee: getAddress(fee.recipient),
        amount: fee.amount,
        reference: referenceBytes(fee.paymentReference),
        feeAmount: 0n,
        feeAddress: zeroAddress,
      })),
    ],
  };
}

/**
 * The cross-chain answer for the link's one leg, or null when the source named is the link's
 * own currency on its own network (nothing to bridge: the same-chain answer serves).
 */
export async function linkCrossChainCalldata(
  deps: CrossChainDeps,
  link: Link,
  leg: PaymentLeg,
  payer: Payer,
  query: CrossChainQuery,
  fees: PayableFees | undefined,
): Promise<CrossChainCalldata | null> {
  if (leg.invoiceCurrency !== undefined || isNative(leg.currency)) {
    throw refuse(
      `Cross-chain payment needs a link in a token; this one is paid in ${(leg.invoiceCurrency ?? leg.currency).id}`,
    );
  }
  const reachable = (network: NetworkId) =>
    deps.clients.configured(network) && deps.chains.contracts(network).multicall3 !== null;
  const need = { network: leg.network, currency: leg.currency, amount: leg.amount };
  const source = paymentSources(deps.chains, reachable, [need]).find(
    (candidate) => candidate.chainKey === query.chain && candidate.tokenKey === query.token,
  );
  if (!source) {
    throw refuse(
      `This link (${leg.currency.id}) cannot be paid from ${query.chain} ${query.token} on this server; its paymentOptions list the sources it can`,
    );
  }
  if (source.exact) return null;
  const destination = linkDestination(deps, leg, fees);
  const wallet = getAddress(payer.wallet ?? zeroAddress);
  const route = await deps.routes.quote(
    link.row.id,
    {
      chainId: source.network.chainId,
      token: getAddress(source.currency.address),
      wallet,
      chainKey: source.chainKey,
      tokenKey: source.tokenKey,
    },
    destination,
  );
  return crossChainAnswer(deps, {
    route,
    sourceNetwork: source.network,
    sourceCurrency: source.currency,
    wallet,
    paymentAmount: destinationTotal(destination),
    linkCurrency: leg.currency,
  });
}
