import { AppError } from '../base/errors.ts';
import { type ChainClients, ChainUnavailableError } from '../chains/clients.ts';
import type { Currency } from '../chains/currencies.ts';
import type { NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';

/**
 * What `POST /v2/request` and payouts check of a currency taken from Request's token list
 * beyond the curated set. Before anything else (`checkListedCurrencies`): a listed currency on a
 * network this server does not serve answers 400 `network_not_supported`, naming it, as does a
 * listed token of a served network without its payment contract there. Once every other check
 * of the request has passed (`checkListedChains`): the token's network needs an RPC to build its
 * calldata and detect its payment (503 `chain_unavailable`), so a request that could never be
 * made (a fiat invoice no feed converts, a bad payee) answers its 400, not a 503 that suggests
 * retrying. Curated currencies pass as before.
 */

interface Body {
  readonly paymentCurrency: string;
  readonly invoiceCurrency: string;
}

export function checkListedCurrencies(deps: { readonly chains: ChainRegistry }, body: Body): void {
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
    const network = listedNetwork(deps.chains, currency);
    if (network !== null && !deps.chains.contracts(network).erc20FeeProxy) {
      throw new AppError(
        'network_not_supported',
        `Payments in ${currency.id} are not supported on ${currency.network}`,
      );
    }
  }
}

export function checkListedChains(
  deps: { readonly chains: ChainRegistry; readonly clients: Pick<ChainClients, 'configured'> },
  body: Body,
): void {
  for (const id of [body.paymentCurrency, body.invoiceCurrency]) {
    const currency = deps.chains.currency(id);
    const network = currency === undefined ? null : listedNetwork(deps.chains, currency);
    if (network !== null && !deps.clients.configured(network)) {
      throw new ChainUnavailableError(network);
    }
  }
}

/** The network of a served token-list currency outside the curated set; null for the rest. */
function listedNetwork(chains: ChainRegistry, currency: Currency): NetworkId | null {
  return chains.isCurated(currency) || currency.network === 'fiat' ? null : currency.network;
}
