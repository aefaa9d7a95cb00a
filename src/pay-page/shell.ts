import { intentChainOf, isSandboxNetwork } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Config } from '../config/config.ts';
import type { PayPageManifest } from './assets.ts';

/**
 * The pay page's HTML shell: a few hundred bytes naming the built script and style sheet, the
 * page's configuration in a meta tag (no inline script, so the CSP can forbid them all) and a
 * loading screen the script replaces. Built once at start; the same string every time.
 */

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

const ATTRIBUTE_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;',
};

/** Text for a quoted HTML attribute: whatever it holds, it cannot end the attribute or the tag. */
export function escapeAttribute(text: string): string {
  return text.replace(/[&"'<>]/g, (char) => ATTRIBUTE_ESCAPES[char] ?? char);
}

/** `basePath`: PAY_URL's path without its trailing slash ('' at the root). */
export function renderShell(input: {
  readonly basePath: string;
  readonly manifest: PayPageManifest;
  readonly config: PageConfig;
  /** What the tab and the loading screen say: a payment's words unless given. */
  readonly words?: { readonly title: string; readonly loading: string; readonly noscript: string };
}): string {
  const words = input.words ?? {
    title: 'Pay',
    loading: 'Loading the payment…',
    noscript: 'This payment page needs JavaScript: turn it on to see the payment and pay it.',
  };
  const asset = (file: string) => escapeAttribute(`${input.basePath}/assets/${file}`);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeAttribute(words.title)}</title>`,
    '<meta name="robots" content="noindex">',
    `<meta name="payreq-config" content="${escapeAttribute(JSON.stringify(input.config))}">`,
    `<link rel="stylesheet" href="${asset(input.manifest.styles)}">`,
    `<script type="module" src="${asset(input.manifest.main)}"></script>`,
    '</head>',
    '<body>',
    `<div id="app"><main class="card" data-screen="loading"><h1>${escapeAttribute(words.loading)}</h1></main></div>`,
    `<noscript>${escapeAttribute(words.noscript)}</noscript>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

export type PageSettings = Pick<Config, 'baseUrl' | 'payUrl' | 'payFrameAncestors'>;

/** PAY_URL's path without its trailing slash: '' when the page is at the root. */
export function payPagePath(payUrl: string): string {
  return new URL(payUrl).pathname.replace(/\/+$/, '');
}

/**
 * The shell's headers. The CSP allows scripts and styles from the page's origin only (no
 * inline code), images from it (branding is served beside the page) and as data: URIs (the
 * icons wallets announce), API calls to the page's origin and the API's, and framing per
 * PAY_FRAME_ANCESTORS. The link's token is in the page's URL, so no referrer leaves it.
 */
export function shellHeaders(
  config: PageSettings,
  /** Other URLs the page calls (the auth API's, for a link intent's page). */
  alsoCalls: readonly string[] = [],
): Record<string, string> {
  const payOrigin = new URL(config.payUrl).origin;
  const others = new Set(
    [config.baseUrl, ...alsoCalls].map((url) => new URL(url).origin).filter((o) => o !== payOrigin),
  );
  const connect = ["'self'", ...others].join(' ');
  const policy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${config.payFrameAncestors}`,
  ];
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    // For browsers that predate frame-ancestors; it can only say none (or same origin).
    ...(config.payFrameAncestors === "'none'" && { 'x-frame-options': 'DENY' }),
    'content-security-policy': policy.join('; '),
  };
}
