import { type Currency, isFiat } from './currencies.ts';
import type { NetworkId, PaymentNetworkId } from './networks.ts';
import type { ChainRegistry } from './registry.ts';

/**
 * Which payment currencies can settle an invoice written in fiat, per network: the Chainlink
 * aggregator graph of contracts.md §3.3 (fiat → USD → token), restricted to the spec's
 * conversion payment currencies (USDC, USDT, DAI, and FAU on Sepolia).
 */
const AGGREGATOR_GRAPH: Readonly<
  Record<PaymentNetworkId, { readonly fiat: readonly string[]; readonly tokens: readonly string[] }>
> = {
  mainnet: { fiat: ['USD', 'EUR', 'GBP', 'JPY', 'CNY'], tokens: ['USDC', 'USDT', 'DAI'] },
  'arbitrum-one': { fiat: ['USD', 'EUR', 'GBP', 'JPY', 'CNY'], tokens: ['USDC', 'USDT', 'DAI'] },
  optimism: { fiat: ['USD', 'EUR', 'JPY'], tokens: ['USDC', 'USDT', 'DAI'] },
  base: { fiat: ['USD'], tokens: ['USDC'] },
  matic: { fiat: ['USD', 'EUR', 'GBP', 'JPY', 'CNY'], tokens: ['USDC', 'USDT', 'DAI'] },
  bsc: { fiat: ['USD', 'EUR', 'GBP', 'JPY'], tokens: ['USDC', 'USDT', 'DAI'] },
  sepolia: { fiat: ['USD', 'EUR', 'GBP'], tokens: ['FAU', 'USDT'] },
  tron: { fiat: [], tokens: [] },
};

/**
 * Payment currencies for `invoice` on the given networks, in network order. A crypto invoice
 * has none: it is paid in its own currency, with no conversion.
 */
export function conversionRoutes(
  chains: ChainRegistry,
  invoice: Currency,
  networks: readonly NetworkId[],
): Currency[] {
  if (!isFiat(invoice)) return [];
  const wanted = new Set(networks);
  const routes: Currency[] = [];
  for (const network of chains.networks) {
    const graph = AGGREGATOR_GRAPH[network.id as PaymentNetworkId];
    if (!wanted.has(network.id as NetworkId) || graph === undefined) continue;
    if (!graph.fiat.includes(invoice.symbol)) continue;
    for (const symbol of graph.tokens) {
      const currency = chains.currency(`${symbol}-${network.id}`);
      if (currency) routes.push(currency);
    }
  }
  return routes;
}
