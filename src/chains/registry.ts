import type { Config } from '../config.ts';
import { sandboxAddresses } from '../sandbox/addresses.ts';
import { type ContractSet, DEPLOYED_CONTRACTS } from './contracts.ts';
import {
  buildCurrencies,
  type Currency,
  type CurrencyList,
  isNative,
  sandboxTokenSpecs,
  TOKEN_SPECS,
  type TokenSpec,
} from './currencies.ts';
import { NETWORKS, type Network, type NetworkId, SANDBOX_NETWORK } from './networks.ts';

/**
 * The networks, contracts and currencies this deployment serves: the facts, with config's
 * overrides applied, plus the sandbox chain when it runs. Built once at start and passed down.
 */
export interface ChainRegistry {
  readonly networks: readonly Network[];
  readonly networkIds: readonly NetworkId[];
  network(id: string): Network | undefined;
  networkByChainId(chainId: number): Network | undefined;
  contracts(id: NetworkId): ContractSet;
  readonly currencies: readonly Currency[];
  /** By id or alias, ignoring case. */
  currency(id: string): Currency | undefined;
  /** The currency a destination's token names on a network (the native sentinel included). */
  currencyByToken(network: NetworkId, tokenAddress: string): Currency | undefined;
  nativeCurrency(network: NetworkId): Currency;
  /** The page of a transaction on the network's explorer; null where it has none. */
  explorerTxUrl(network: NetworkId, txHash: string): string | null;
}

export const NATIVE_SENTINEL = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

export function createChainRegistry(config: Pick<Config, 'networks' | 'sandbox'>): ChainRegistry {
  const networks: Network[] = [...NETWORKS, ...(config.sandbox ? [SANDBOX_NETWORK] : [])];
  const explorers = new Map<string, string | null>(
    networks.map((network) => {
      const configured = config.networks[network.id as keyof typeof config.networks];
      const template =
        configured?.explorerTxUrl === undefined ? network.explorerTxUrl : configured.explorerTxUrl;
      return [network.id, template];
    }),
  );
  const contracts = new Map<string, ContractSet>();
  for (const network of NETWORKS) {
    contracts.set(network.id, {
      ...DEPLOYED_CONTRACTS[network.id],
      ...config.networks[network.id].contracts,
    });
  }
  if (config.sandbox) {
    const addresses = sandboxAddresses();
    contracts.set(SANDBOX_NETWORK.id, {
      erc20FeeProxy: addresses.erc20FeeProxy,
      ethFeeProxy: addresses.ethFeeProxy,
      batchPayments: addresses.batchPayments,
      multicall3: addresses.multicall3,
      erc20ConversionProxy: addresses.erc20ConversionProxy,
      ethConversionProxy: addresses.ethConversionProxy,
      chainlinkConversionPath: addresses.chainlinkConversionPath,
      recurringPaymentProxy: addresses.recurringPaymentProxy,
    });
  }
  const tokensOf = (network: Network): readonly TokenSpec[] => {
    if (network.id === SANDBOX_NETWORK.id) return sandboxTokenSpecs();
    const id = network.id as keyof typeof TOKEN_SPECS;
    const overrides = config.networks[id].tokens;
    return TOKEN_SPECS[id].map((token) => ({
      ...token,
      address: overrides[token.symbol] ?? token.address,
    }));
  };
  const list: CurrencyList = buildCurrencies(networks, tokensOf);
  const byToken = new Map<string, Currency>();
  for (const currency of list.all) {
    if (currency.network === 'fiat') continue;
    const key = isNative(currency) ? NATIVE_SENTINEL : currency.address.toLowerCase();
    // USDT0 shares USDT's contract on some networks; the first (USDT) names the token.
    if (!byToken.has(`${currency.network}:${key}`))
      byToken.set(`${currency.network}:${key}`, currency);
  }
  const byNetwork = new Map(networks.map((n) => [n.id, n]));
  const byChainId = new Map(networks.map((n) => [n.chainId, n]));

  return {
    networks,
    networkIds: networks.map((n) => n.id as NetworkId),
    network: (id) => byNetwork.get(id),
    networkByChainId: (chainId) => byChainId.get(chainId),
    contracts: (id) => {
      const set = contracts.get(id);
      if (!set) throw new Error(`no contracts for network ${id}`);
      return set;
    },
    currencies: list.all,
    currency: (id) => list.byId.get(id.trim().toLowerCase()),
    currencyByToken: (network, tokenAddress) =>
      byToken.get(`${network}:${tokenAddress.toLowerCase()}`),
    explorerTxUrl: (network, txHash) =>
      explorers.get(network)?.replaceAll('{txHash}', txHash) ?? null,
    nativeCurrency: (network) => {
      const found = list.all.find((c) => c.network === network && isNative(c));
      if (!found) throw new Error(`no native currency on ${network}`);
      return found;
    },
  };
}
