import { getAddress } from 'viem';
import type { Currency, CurrencyFacts, CurrencyList } from './currencies.ts';
import type { Network, NetworkId } from './networks.ts';
import { TOKEN_LIST_CHAIN_IDS, TOKEN_LIST_ROWS } from './token-list.ts';

/**
 * Request's token list (src/chains/token-list.ts, generated from its release file) next to the
 * curated currencies (tokens.ts, currencies.ts). The list is what `GET /v2/currencies` serves
 * and what requests and payouts may be written in on the networks we serve; the curated set
 * stays what destinations and secure links take.
 */

/** Every entry of the token list, field for field as its file writes it, in its order. */
export function tokenListEntries(): CurrencyFacts[] {
  return TOKEN_LIST_ROWS.map(([id, name, symbol, decimals, address, network, type, hash]) => {
    const chainId = TOKEN_LIST_CHAIN_IDS[network];
    if (chainId === undefined) throw new Error(`token list: no chain id for ${network}`);
    return { id, name, symbol, decimals, address, network, type, hash: hash ?? address, chainId };
  });
}

/** What `GET /v2/currencies` answers from, indexed. */
export interface CurrencyCatalogue {
  /** The token list's entries, then the curated currencies it lacks (USDT0, TRX, the sandbox's). */
  readonly all: readonly CurrencyFacts[];
  /** Every network of `all` (`fiat` included), in order of first appearance. */
  readonly networks: readonly string[];
  /** By the list's id, or by any id or alias of the curated currency it is, ignoring case. */
  byId(id: string): CurrencyFacts | undefined;
  /** The entries of a network, in order. */
  onNetwork(network: string): readonly CurrencyFacts[];
  /** The entries with a symbol (ignoring case), in order. */
  withSymbol(symbol: string): readonly CurrencyFacts[];
  /** The entry a curated or listed currency is served as. */
  servedAs(currency: Currency): CurrencyFacts;
}

export interface ListedCurrencies {
  readonly catalogue: CurrencyCatalogue;
  /** Listed ERC20/TRC20 tokens on `networks` that no curated currency is: requests may use them. */
  readonly listedOnly: readonly Currency[];
}

/**
 * The catalogue, and the listed-only currencies of the served networks. A listed entry is a
 * curated currency when its id is that currency's id or alias on the same network
 * (`USDCn-matic` is our `USDC-matic`); it then takes the curated address, so `TOKENS_<NETWORK>`
 * overrides show. A listed-only token's address follows `TOKENS_<NETWORK>` by symbol.
 */
export function buildListedCurrencies(
  curated: CurrencyList,
  networks: readonly Network[],
  tokenOverrides: (network: NetworkId) => Readonly<Record<string, string>>,
): ListedCurrencies {
  const served = new Map<string, Network>(networks.map((n) => [n.id, n]));
  const all: CurrencyFacts[] = [];
  const byId = new Map<string, CurrencyFacts>();
  // By the id of our currency (curated or listed-only): the entry it is served as.
  const byCurated = new Map<string, CurrencyFacts>();
  const listedOnly: Currency[] = [];

  for (const entry of tokenListEntries()) {
    const known = curated.byId.get(entry.id.toLowerCase());
    const network = served.get(entry.network);
    let shown = entry;
    if (known !== undefined && known.network === entry.network) {
      // The curated address differs only where an override moved it (or in letter case).
      if (known.address.toLowerCase() !== entry.address.toLowerCase()) {
        shown = { ...entry, address: known.address, hash: known.hash };
      }
      byCurated.set(known.id, shown);
    } else if (
      known === undefined &&
      network !== undefined &&
      (entry.type === 'ERC20' || entry.type === 'TRC20')
    ) {
      const moved = tokenOverrides(network.id)[entry.symbol];
      // The list's EVM addresses of served networks are checksummed (listed.test.ts checks):
      // only an override is checksummed here, which keeps 500 hashes out of every start.
      const address =
        network.kind === 'evm' && moved !== undefined
          ? getAddress(moved)
          : (moved ?? entry.address);
      if (moved !== undefined) shown = { ...entry, address, hash: address };
      const currency: Currency = { ...entry, network: network.id, address, hash: address };
      listedOnly.push(currency);
      byCurated.set(currency.id, shown);
    }
    all.push(shown);
    byId.set(entry.id.toLowerCase(), shown);
  }
  for (const currency of curated.all) {
    if (byCurated.has(currency.id)) continue;
    all.push(currency);
    byCurated.set(currency.id, currency);
  }
  // Our ids and aliases reach the entry they are, unless the list uses the id itself.
  for (const [key, currency] of curated.byId) {
    const shown = byCurated.get(currency.id);
    if (shown !== undefined && !byId.has(key)) byId.set(key, shown);
  }

  const onNetwork = groupBy(all, (entry) => entry.network);
  const withSymbol = groupBy(all, (entry) => entry.symbol.toLowerCase());
  return {
    catalogue: {
      all,
      networks: [...onNetwork.keys()],
      byId: (id) => byId.get(id.trim().toLowerCase()),
      onNetwork: (network) => onNetwork.get(network) ?? [],
      withSymbol: (symbol) => withSymbol.get(symbol.toLowerCase()) ?? [],
      servedAs: (currency) => byCurated.get(currency.id) ?? currency,
    },
    listedOnly,
  };
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
