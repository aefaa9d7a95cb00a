import { type Currency, isFiat } from './currencies.ts';
import type { NetworkId } from './networks.ts';
import type { ChainRegistry } from './registry.ts';

/**
 * Which payment currencies can settle an invoice written in fiat, per network: the Chainlink
 * aggregator graph of contracts.md §3.3 (fiat → USD → token), restricted to the spec's
 * conversion payment currencies (USDC, USDT, DAI, and FAU on Sepolia).
 */
const AGGREGATOR_GRAPH: Readonly<
  Record<NetworkId, { readonly fiat: readonly string[]; readonly tokens: readonly string[] }>
> = {
  mainnet: { fiat: ['USD', 'EUR', 'GBP', 'JPY', 'CNY'], tokens: ['USDC', 'USDT', 'DAI'] },
  'arbitrum-one': { fiat: ['USD', 'EUR', 'GBP', 'JPY', 'CNY'], tokens: ['USDC', 'USDT', 'DAI'] },
  optimism: { fiat: ['USD', 'EUR', 'JPY'], tokens: ['USDC', 'USDT', 'DAI'] },
  base: { fiat: ['USD'], tokens: ['USDC'] },
  matic: { fiat: ['USD', 'EUR', 'GBP', 'JPY', 'CNY'], tokens: ['USDC', 'USDT', 'DAI'] },
  bsc: { fiat: ['USD', 'EUR', 'GBP', 'JPY'], tokens: ['USDC', 'USDT', 'DAI'] },
  sepolia: { fiat: ['USD', 'EUR', 'GBP'], tokens: ['FAU', 'USDT'] },
  tron: { fiat: [], tokens: [] },
  // The sandbox chains' mock feeds (src/sandbox/addresses.ts): every fiat, every token, ETH.
  sandbox: { fiat: ['USD', 'EUR', 'GBP', 'JPY', 'CNY'], tokens: ['USDC', 'USDT', 'DAI', 'ETH'] },
  'sandbox-b': {
    fiat: ['USD', 'EUR', 'GBP', 'JPY', 'CNY'],
    tokens: ['USDC', 'USDT', 'DAI', 'ETH'],
  },
};

/**
 * Payment currencies for `invoice` on the given networks, in network order. A crypto invoice
 * has none: it is paid in its own currency, with no conversion.
 */
export function conversionRoutes(
  chains: ChainRegistry,
  invoice: Currency,
  networks: readonly string[],
): Currency[] {
  if (!isFiat(invoice)) return [];
  const wanted = new Set<string>(networks);
  const routes: Currency[] = [];
  for (const network of chains.networks) {
    const graph = AGGREGATOR_GRAPH[network.id];
    if (!wanted.has(network.id) || graph === undefined) continue;
    if (!graph.fiat.includes(invoice.symbol)) continue;
    for (const symbol of graph.tokens) {
      const currency = chains.currency(`${symbol}-${network.id}`);
      if (currency) routes.push(currency);
    }
  }
  return routes;
}

/**
 * The ChainlinkConversionPath path from a fiat invoice currency to what the wallet pays, on
 * `network`: `[fiat hash, token]` from USD, `[fiat hash, USD hash, token]` from another fiat
 * (every feed of the graph goes through USD). Null when the network has no such route.
 */
export function conversionPath(
  chains: ChainRegistry,
  network: NetworkId,
  invoice: Currency,
  payment: Currency,
): `0x${string}`[] | null {
  const graph = AGGREGATOR_GRAPH[network];
  if (!isFiat(invoice) || payment.network !== network || !graph) return null;
  if (!graph.fiat.includes(invoice.symbol) || !graph.tokens.includes(payment.symbol)) return null;
  const usd = chains.currency('USD');
  if (!usd) return null;
  const hashOf = (currency: Currency) => currency.hash as `0x${string}`;
  return invoice.symbol === 'USD'
    ? [hashOf(invoice), hashOf(payment)]
    : [hashOf(invoice), hashOf(usd), hashOf(payment)];
}
