import { AppError } from '../base/errors.ts';
import { conversionRoutes } from '../chains/conversion-routes.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { currencyBody } from './schemas.ts';
import { selectNetworks } from './select.ts';

/**
 * `GET /v2/currencies/{id}/conversion-routes`: the payment currencies that can settle the
 * invoice currency `currencyId`, on one network or several (all by default).
 */
export function currencyConversions(
  chains: ChainRegistry,
  currencyId: string,
  query: { readonly network?: string | undefined; readonly networks?: string | undefined },
) {
  const scope = selectNetworks(chains, query.network, query.networks);
  const invoice = chains.currency(currencyId);
  if (invoice === undefined) throw new AppError('currency_not_found', 'Currency not found');
  if (scope.key === 'network') {
    const routes = conversionRoutes(chains, invoice, [scope.id]).map(currencyBody);
    return { currencyId: invoice.id, network: scope.id, conversionRoutes: routes };
  }
  const routes = conversionRoutes(chains, invoice, scope.ids).map(currencyBody);
  return { currencyId: invoice.id, networks: [...scope.ids], conversionRoutes: routes };
}
