import { AppError } from '../base/errors.ts';
import { conversionRoutes } from '../chains/conversion-routes.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { currencyBody } from './schemas.ts';
import { selectNetworks } from './select.ts';

/**
 * `GET /v2/currencies/{id}/conversion-routes`: the payment currencies that can settle the
 * invoice currency `currencyId`, on one network or several (all served ones by default), each
 * as `GET /v2/currencies` serves it. Any listed currency is found; only our fiat codes have
 * routes (the aggregator graph of conversion-routes.ts).
 */
export function currencyConversions(
  chains: ChainRegistry,
  currencyId: string,
  query: { readonly network?: string | undefined; readonly networks?: string | undefined },
) {
  const scope = selectNetworks(chains, query.network, query.networks);
  const listed = chains.catalogue.byId(currencyId);
  if (listed === undefined) throw new AppError('currency_not_found', 'Currency not found');
  const invoice = chains.currency(listed.id) ?? chains.currency(currencyId);
  const routesOn = (networks: readonly string[]) =>
    invoice === undefined
      ? []
      : conversionRoutes(chains, invoice, networks).map((currency) =>
          currencyBody(chains.catalogue.servedAs(currency)),
        );
  if (scope.key === 'network') {
    return { currencyId: listed.id, network: scope.id, conversionRoutes: routesOn([scope.id]) };
  }
  return {
    currencyId: listed.id,
    networks: [...scope.ids],
    conversionRoutes: routesOn(scope.ids),
  };
}
