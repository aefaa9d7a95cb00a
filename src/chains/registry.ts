import { type ContractSet, DEPLOYED_CONTRACTS } from './contracts.ts';
import { buildCurrencies, type Currency, isNative } from './currencies.ts';
import { buildListedCurrencies, type CurrencyCatalogue } from './listed.ts';
import { type NetworkConfigs, networkConfig } from './network-config.ts';
import {
  isSandboxNetwork,
  NETWORKS,
  type Network,
  type NetworkId,
  type SandboxNetworkId,
} from './networks.ts';
import { TOKEN_SPECS, type TokenSpec } from './tokens.ts';

/**
 * The networks, contracts and currencies this deployment serves: the facts, with config's
 * overrides applied, plus a local chain when one runs. Built once at start and passed down.
 */
export interface ChainRegistry {
  readonly networks: readonly Network[];
  readonly networkIds: readonly NetworkId[];
  network(id: string): Network | undefined;
  networkByChainId(chainId: number): Network | undefined;
  contracts(id: NetworkId): ContractSet;
  /** The curated currencies, then the token list's other tokens on the served networks. */
  readonly currencies: readonly Currency[];
  /** By id or alias, ignoring case: curated, or listed on a served network. */
  currency(id: string): Currency | undefined;
  /** The currencies with a symbol, ignoring case. */
  currenciesWithSymbol(symbol: string): readonly Currency[];
  /**
   * Whether a currency is of the curated set (tokens.ts, currencies.ts), which destinations and
   * secure links keep to; requests and payouts also take the token list's other tokens.
   */
  isCurated(currency: Currency): boolean;
  /** What `GET /v2/currencies` serves: Request's token list, then the curated currencies it lacks. */
  readonly catalogue: CurrencyCatalogue;
  /** The curated currency a destination's token names on a network (the native sentinel too). */
  currencyByToken(network: NetworkId, tokenAddress: string): Currency | undefined;
  nativeCurrency(network: NetworkId): Currency;
  /** The page of a transaction on the network's explorer; null where it has none. */
  explorerTxUrl(network: NetworkId, txHash: string): string | null;
}

const NATIVE_SENTINEL = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

/**
 * A chain this process runs itself (a sandbox chain): its network, where its contracts are and
 * which tokens it has. The entry point that starts it says so; nothing here knows of one.
 */
export interface LocalNetwork {
  readonly network: Network & { readonly id: SandboxNetworkId };
  readonly contracts: ContractSet;
  readonly tokens: readonly TokenSpec[];
}

export function createChainRegistry(
  config: { readonly networks: NetworkConfigs },
  local?: LocalNetwork | readonly LocalNetwork[],
): ChainRegistry {
  const locals: readonly LocalNetwork[] = local === undefined ? [] : [local].flat();
  const networks: Network[] = [...NETWORKS, ...locals.map((l) => l.network)];
  const explorers = new Map<string, string | null>(
    networks.map((network) => {
      const configured = networkConfig(config.networks, network.id);
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
  for (const l of locals) contracts.set(l.network.id, l.contracts);
  const tokensOf = (network: Network): readonly TokenSpec[] => {
    if (isSandboxNetwork(network.id)) {
      return locals.find((l) => l.network.id === network.id)?.tokens ?? [];
    }
    const overrides = config.networks[network.id].tokens;
    return TOKEN_SPECS[network.id].map((token) => ({
      ...token,
      address: overrides[token.symbol] ?? token.address,
    }));
  };
  const curated = buildCurrencies(networks, tokensOf);
  const listed = buildListedCurrencies(curated, networks, (id) =>
    isSandboxNetwork(id) ? {} : config.networks[id].tokens,
  );
  const all: Currency[] = [...curated.all];
  const byId = new Map(curated.byId);
  for (const currency of listed.listedOnly) {
    const key = currency.id.toLowerCase();
    if (byId.has(key)) continue;
    all.push(currency);
    byId.set(key, currency);
  }
  const curatedIds = new Set(curated.all.map((currency) => currency.id));
  const bySymbol = new Map<string, Currency[]>();
  const natives = new Map<string, Currency>();
  for (const currency of all) {
    const symbol = currency.symbol.toLowerCase();
    const same = bySymbol.get(symbol);
    if (same) same.push(currency);
    else bySymbol.set(symbol, [currency]);
    if (isNative(currency)) natives.set(currency.network, currency);
  }
  // Destinations name a token by address; they take the curated set only.
  const byToken = new Map<string, Currency>();
  for (const currency of curated.all) {
    if (currency.network === 'fiat') continue;
    const key = isNative(currency) ? NATIVE_SENTINEL : currency.address.toLowerCase();
    // USDT0 shares USDT's contract on some networks; the first (USDT) names the token.
    if (!byToken.has(`${currency.network}:${key}`))
      byToken.set(`${currency.network}:${key}`, currency);
  }
  const byNetwork = new Map<string, Network>(networks.map((n) => [n.id, n]));
  const byChainId = new Map(networks.map((n) => [n.chainId, n]));

  return {
    networks,
    networkIds: networks.map((n) => n.id),
    network: (id) => byNetwork.get(id),
    networkByChainId: (chainId) => byChainId.get(chainId),
    contracts: (id) => {
      const set = contracts.get(id);
      if (!set) throw new Error(`no contracts for network ${id}`);
      return set;
    },
    currencies: all,
    currency: (id) => byId.get(id.trim().toLowerCase()),
    currenciesWithSymbol: (symbol) => bySymbol.get(symbol.toLowerCase()) ?? [],
    isCurated: (currency) => curatedIds.has(currency.id),
    catalogue: listed.catalogue,
    currencyByToken: (network, tokenAddress) =>
      byToken.get(`${network}:${tokenAddress.toLowerCase()}`),
    explorerTxUrl: (network, txHash) =>
      explorers.get(network)?.replaceAll('{txHash}', txHash) ?? null,
    nativeCurrency: (network) => {
      const found = natives.get(network);
      if (!found) throw new Error(`no native currency on ${network}`);
      return found;
    },
  };
}
