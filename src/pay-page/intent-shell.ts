import type { ChainRegistry } from '../chains/registry.ts';
import type { Config } from '../config/config.ts';
import { type IntentPageConfig, type PageSettings, payPageHeaders } from './shell.ts';

/**
 * The shell of a link intent's page (`<PAY_URL>/link/<accessToken>`): the pay page's build and
 * shell, with what that page needs besides (the auth API's base, the tokens a destination may
 * take) and headers of its own. The merchant signs in there, so no one may frame it, whatever
 * PAY_FRAME_ANCESTORS allows the payment pages, and it may call the auth API's origin.
 */

export const INTENT_PAGE_WORDS = {
  title: 'Link your account',
  loading: 'Loading the invitation…',
  noscript: 'This page needs JavaScript: turn it on to accept the invitation.',
} as const;

export function intentPageConfig(deps: {
  readonly authUrl: string;
  readonly chains: ChainRegistry;
}): IntentPageConfig {
  const currencies: Record<string, { symbol: string; address: string }[]> = {};
  for (const network of deps.chains.networks) {
    if (network.kind !== 'evm') continue;
    // The tokens a destination takes: those that name their contract on this network (USDT0
    // shares USDT's on some, and USDT names it).
    currencies[network.id] = deps.chains.currencies
      .filter(
        (currency) =>
          currency.network === network.id &&
          currency.type === 'ERC20' &&
          deps.chains.isCurated(currency) &&
          deps.chains.currencyByToken(network.id, currency.address) === currency,
      )
      .map((currency) => ({ symbol: currency.symbol, address: currency.address }));
  }
  return { authBase: deps.authUrl, currencies };
}

export function intentShellHeaders(
  config: PageSettings & Pick<Config, 'authUrl'>,
): Record<string, string> {
  return payPageHeaders({ ...config, payFrameAncestors: "'none'" }, [config.authUrl]);
}
