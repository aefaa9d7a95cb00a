import { AppError } from '../base/errors.ts';
import { type ChainClients, ChainUnavailableError } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';

/**
 * What `POST /v2/request` and payouts check of a currency taken from Request's token list
 * beyond the curated set, before anything else: a listed currency on a network this server
 * does not serve answers 400 `network_not_supported`, naming it; a listed token of a served
 * network needs its payment contract there (400) and an RPC to build its calldata and detect
 * its payment (503 `chain_unavailable`). Curated currencies pass as before.
 */
export function checkListedCurrencies(
  deps: { readonly chains: ChainRegistry; readonly clients: Pick<ChainClients, 'configured'> },
  body: { readonly paymentCurrency: string; readonly invoiceCurrency: string },
): void {
  for (const id of [body.paymentCurrency, body.invoiceCurrency]) {
    const currency = deps.chains.currency(id);
    if (currency === undefined) {
      const listed = deps.chains.catalogue.byId(id);
      if (listed !== undefined && listed.network !== 'fiat') {
        throw new AppError(
          'network_not_supported',
          `Payments in ${listed.id} are not supported on ${listed.network}: this server has no payment contracts on that network`,
        );
      }
      continue;
    }
    if (deps.chains.isCurated(currency) || currency.network === 'fiat') continue;
    const proxy = deps.chains.contracts(currency.network).erc20FeeProxy;
    if (!proxy) {
      throw new AppError(
        'network_not_supported',
        `Payments in ${currency.id} are not supported on ${currency.network}`,
      );
    }
    if (!deps.clients.configured(currency.network)) {
      throw new ChainUnavailableError(currency.network);
    }
  }
}
