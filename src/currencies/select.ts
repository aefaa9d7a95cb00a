import { AppError, ValidationError } from '../base/errors.ts';
import type { CurrencyFacts } from '../chains/currencies.ts';
import type { CurrencyCatalogue } from '../chains/listed.ts';
import type { ChainRegistry } from '../chains/registry.ts';

export interface CurrencyQuery {
  readonly network?: string | undefined;
  readonly symbol?: string | undefined;
  readonly id?: string | undefined;
  readonly firstOnly?: string | undefined;
}

export type CurrencySelection =
  | { readonly kind: 'one'; readonly currency: CurrencyFacts }
  | { readonly kind: 'many'; readonly currencies: readonly CurrencyFacts[] };

const TOKEN_NOT_FOUND = 'Token not found';

/**
 * `GET /v2/currencies` filters over the catalogue (Request's token list, then the curated
 * currencies it lacks), ANDed. `id` or `firstOnly=true` answer one object, anything else a
 * list; no match is 404. `firstOnly` needs both `network` and `symbol`.
 */
export function selectCurrencies(
  catalogue: CurrencyCatalogue,
  query: CurrencyQuery,
): CurrencySelection {
  if (query.firstOnly !== undefined) {
    if (query.firstOnly !== 'true' && query.firstOnly !== 'false') {
      throw new ValidationError([{ field: 'firstOnly', message: "must be 'true' or 'false'" }]);
    }
    if (query.network === undefined || query.symbol === undefined) {
      throw new ValidationError([
        { field: 'firstOnly', message: 'can only be used together with network and symbol' },
      ]);
    }
  }
  if (query.network !== undefined && !catalogue.networks.includes(query.network)) {
    throw new ValidationError([
      { field: 'network', message: `must be one of ${catalogue.networks.join(', ')}` },
    ]);
  }

  const symbol = query.symbol?.toLowerCase();
  const matches = (currency: CurrencyFacts) =>
    (query.network === undefined || currency.network === query.network) &&
    (symbol === undefined || currency.symbol.toLowerCase() === symbol);

  if (query.id !== undefined) {
    const currency = catalogue.byId(query.id);
    if (currency === undefined || !matches(currency)) throw tokenNotFound();
    return { kind: 'one', currency };
  }
  // Start from the smaller index: a network's entries, or a symbol's.
  const candidates =
    symbol !== undefined
      ? catalogue.withSymbol(symbol)
      : query.network !== undefined
        ? catalogue.onNetwork(query.network)
        : catalogue.all;
  const currencies = candidates.filter(matches);
  const [first] = currencies;
  if (first === undefined) throw tokenNotFound();
  return query.firstOnly === 'true'
    ? { kind: 'one', currency: first }
    : { kind: 'many', currencies };
}

/**
 * `network=base` or `networks=base,matic` (not both), among the catalogue's networks (a listed
 * network we do not serve has no routes); neither means every network this server serves.
 */
export function selectNetworks(
  chains: ChainRegistry,
  network: string | undefined,
  networks: string | undefined,
):
  | { readonly key: 'network'; readonly id: string }
  | { readonly key: 'networks'; readonly ids: readonly string[] } {
  if (network !== undefined && networks !== undefined) {
    throw new ValidationError([{ field: 'networks', message: 'cannot be combined with network' }]);
  }
  const names = chains.catalogue.networks.filter((name) => name !== 'fiat');
  const known = (id: string) => names.includes(id);
  const invalid = (field: string) =>
    new ValidationError([{ field, message: `must name networks among ${names.join(', ')}` }]);
  if (network !== undefined) {
    if (!known(network)) throw invalid('network');
    return { key: 'network', id: network };
  }
  if (networks === undefined) return { key: 'networks', ids: chains.networkIds };
  const ids = networks.split(',').map((n) => n.trim());
  const valid = ids.filter(known);
  if (valid.length !== ids.length || valid.length === 0) throw invalid('networks');
  return { key: 'networks', ids: [...new Set(valid)] };
}

function tokenNotFound(): AppError {
  return new AppError('token_not_found', TOKEN_NOT_FOUND);
}
