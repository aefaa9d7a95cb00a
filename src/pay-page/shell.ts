import { intentChainOf, isSandboxNetwork } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Config } from '../config/config.ts';
import { webAppDist } from '../http/web-assets.ts';
import { pathOf, type ShellWords, shellHeaders } from '../http/web-shell.ts';

/** What the pay page's HTML shell (http/web-shell.ts) holds: its configuration and words. */

/**
 * What the page reads from `<meta name="payreq-config">`. The browser side declares the same
 * shape in src/pay-page/app/config.ts (compiled apart, for the DOM); nothing in it is secret.
 */
interface PageNetwork {
  readonly name: string;
  readonly chainId: number;
  readonly kind: 'evm' | 'tron';
  readonly native: { readonly name: string; readonly symbol: string; readonly decimals: number };
  /** `{txHash}` stands for the transaction; null where the network has no explorer. */
  readonly explorerTxUrl: string | null;
  /** Only where wallets cannot know the chain: the sandbox. */
  readonly rpcUrl: string | null;
  /** The network's name in an intent's `chain` (`BASE`); null where intents name none. */
  readonly intentChain: string | null;
}

export interface PageConfig {
  readonly apiBase: string;
  readonly clientId: string;
  readonly networks: Readonly<Record<string, PageNetwork>>;
  /** Only in the shell of a link intent's page (intent-shell.ts). */
  readonly intent?: IntentPageConfig;
}

/** What the page of a link intent needs besides: the auth API, and what a destination may take. */
export interface IntentPageConfig {
  readonly authBase: string;
  /** Per EVM network id, the tokens a payee destination may name (the curated set). */
  readonly currencies: Readonly<Record<string, readonly DestinationToken[]>>;
}

interface DestinationToken {
  readonly symbol: string;
  readonly address: string;
}

export function pageConfig(deps: {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly chains: ChainRegistry;
}): PageConfig {
  const networks: Record<string, PageNetwork> = {};
  for (const network of deps.chains.networks) {
    networks[network.id] = {
      name: network.name,
      chainId: network.chainId,
      kind: network.kind,
      native: {
        name: network.native.name,
        symbol: network.native.symbol,
        decimals: network.native.decimals,
      },
      explorerTxUrl: deps.chains.explorerTxUrl(network.id, '{txHash}'),
      // The registry holds a sandbox chain only when this deployment runs it (and serves its RPC).
      rpcUrl: isSandboxNetwork(network.id) ? `${deps.baseUrl}/${network.id}/rpc` : null,
      intentChain: intentChainOf(network),
    };
  }
  return { apiBase: deps.baseUrl, clientId: deps.clientId, networks };
}

/** Where the pay page is built (scripts/build-web-app.ts) and read from. */
export const PAY_PAGE_DIST = webAppDist('pay-page');

/** What the pay page's tab and loading screen say. */
export const PAY_PAGE_WORDS: ShellWords = {
  title: 'Pay',
  loading: 'Loading the payment…',
  noscript: 'This payment page needs JavaScript: turn it on to see the payment and pay it.',
};

export type PageSettings = Pick<Config, 'baseUrl' | 'payUrl' | 'payFrameAncestors'>;

/** PAY_URL's path without its trailing slash: '' when the page is at the root. */
export function payPagePath(payUrl: string): string {
  return pathOf(payUrl);
}

/**
 * The pay page's headers (http/web-shell.ts): it calls the API's origin (and `alsoCalls`', the
 * auth API's for a link intent's page), and may be framed per PAY_FRAME_ANCESTORS.
 */
export function payPageHeaders(
  config: PageSettings,
  alsoCalls: readonly string[] = [],
): Record<string, string> {
  return shellHeaders({
    url: config.payUrl,
    frameAncestors: config.payFrameAncestors,
    calls: [config.baseUrl, ...alsoCalls],
  });
}
