import { type Currency, isNative, sameToken } from '../chains/currencies.ts';
import {
  isSandboxNetwork,
  type Network,
  type NetworkId,
  networkEnvSuffix,
} from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';

/**
 * Which chains and tokens a payer is offered to pay a link from (`paymentOptions`), and how
 * much each would take. Pure: the balances are read elsewhere (payment-options.ts).
 */

/** What the link still asks of its payer in one currency, on the link's network, in base units. */
export interface PaymentNeed {
  readonly network: Network;
  readonly currency: Currency;
  readonly amount: bigint;
}

/** One token on one chain the payer could pay from, and the need it would pay. */
export interface PaymentSource {
  /** The answer's chain key: the cross-chain `chain` enum (`BASE`), else the network's suffix. */
  readonly chainKey: string;
  /** The answer's token key: the symbol (`USDC`; the link's own currency keeps its own, `ETH`). */
  readonly tokenKey: string;
  readonly network: Network;
  readonly currency: Currency;
  readonly need: PaymentNeed;
  /** The link's own currency on its own network: the amount needed is the need, exactly. */
  readonly exact: boolean;
}

/**
 * The source tokens of a cross-chain payment: the `token` enum of `/pay` (api-facts §2.7), in
 * its order. Prose names only USDC and USDT (seed-vs-docs §7.6); we follow the enum and offer
 * a token only where this server knows its contract (no EURC address is curated yet).
 */
const SOURCE_TOKENS = ['USDC', 'USDT', 'EURC', 'USDT0'] as const;

/**
 * Tokens that pay for one another one for one before the bridge's fee: a link in one is offered
 * the source tokens of its peg. A link in anything else (ETH, FAU, a listed token) is offered
 * its own currency on its own chain only.
 */
const PEGS: readonly (readonly string[])[] = [['USDC', 'USDT', 'USDT0', 'DAI'], ['EURC']];

const pegOf = (symbol: string) => PEGS.find((peg) => peg.includes(symbol.toUpperCase()));

function chainKeyOf(network: Network): string {
  return network.crossChainName ?? networkEnvSuffix(network.id);
}

/**
 * Every source to read for these needs (all on one network): each need's own currency on its
 * own chain, then, when the link asks for one pegged currency only on a bridged network, every
 * source token of its peg on every EVM network with a cross-chain name that this server can reach. Two symbols of
 * one contract (USDT and USDT0 on Arbitrum and Polygon) are one source, under the first.
 * The sandbox's chains are bridged by the sandbox's own aggregator and bridge, between each
 * other only (never to or from a real network), and across chains only (no swap on one).
 * `crossChain` false (a payment `/pay` refuses to route: a batch, a smart account's) keeps every
 * need to its own currency on its own chain.
 */
export function paymentSources(
  chains: ChainRegistry,
  reachable: (network: NetworkId) => boolean,
  needs: readonly PaymentNeed[],
  crossChain = true,
): PaymentSource[] {
  const sources: PaymentSource[] = [];
  const [only] = needs;
  if (only?.network.kind !== 'evm' || !reachable(only.network.id)) return sources;
  for (const need of needs) {
    sources.push({
      chainKey: chainKeyOf(need.network),
      tokenKey: need.currency.symbol,
      network: need.network,
      currency: need.currency,
      need,
      exact: true,
    });
  }
  // A network the aggregator does not bridge (a testnet) keeps to itself.
  const bridged = crossChain && needs.length === 1 && only.network.crossChainName !== null;
  const peg = bridged ? pegOf(only.currency.symbol) : undefined;
  if (!peg) return sources;
  // The link's own network first, so that its same-chain options lead the answer.
  const networks = [
    only.network,
    ...chains.networks.filter((network) => network.id !== only.network.id),
  ];
  const local = isSandboxNetwork(only.network.id);
  for (const network of networks) {
    if (network.kind !== 'evm' || network.crossChainName === null || !reachable(network.id)) {
      continue;
    }
    if (isSandboxNetwork(network.id) !== local || (local && network.id === only.network.id)) {
      continue;
    }
    for (const symbol of SOURCE_TOKENS) {
      if (!peg.includes(symbol)) continue;
      const currency = curatedToken(chains, network, symbol);
      if (!currency) continue;
      if (sources.some((s) => s.network.id === network.id && sameToken(s.currency, currency))) {
        continue;
      }
      sources.push({
        chainKey: chainKeyOf(network),
        tokenKey: symbol,
        network,
        currency,
        need: only,
        exact: false,
      });
    }
  }
  return sources;
}

function curatedToken(chains: ChainRegistry, network: Network, symbol: string) {
  return chains
    .currenciesWithSymbol(symbol)
    .find((c) => c.network === network.id && !isNative(c) && chains.isCurated(c));
}

/**
 * How much of a source token pays a need, in the source's base units; null when the source
 * cannot pay it. A link's options answer a source quoted for the payer with its route's source
 * amount, bridge fee included (secure-payments/link-payment-options.ts), the others at face value.
 */
export type NeededAmountEstimator = (source: PaymentSource) => Promise<bigint | null>;

/**
 * Until quotes are read: the need itself for the link's own currency; for a pegged token, the
 * same value in the source's decimals, rounded up (the amount before the bridge's fee).
 */
export const faceValueEstimate: NeededAmountEstimator = async (source) => {
  const { amount, currency } = source.need;
  if (source.exact) return amount;
  const from = BigInt(currency.decimals);
  const to = BigInt(source.currency.decimals);
  if (to >= from) return amount * 10n ** (to - from);
  const scale = 10n ** (from - to);
  return (amount + scale - 1n) / scale;
};
