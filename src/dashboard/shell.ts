import type { ChainRegistry } from '../chains/registry.ts';
import type { Config } from '../config/config.ts';
import { webAppDist } from '../http/web-assets.ts';
import { pathOf, type ShellWords, shellHeaders } from '../http/web-shell.ts';

/**
 * The merchant dashboard's HTML shell (http/web-shell.ts): at DASHBOARD_URL's path, served by
 * this process unless that is the pay page's path (a dashboard hosted elsewhere).
 */

/** Where the dashboard is built (scripts/build-web-app.ts) and read from. */
export const DASHBOARD_DIST = webAppDist('dashboard');

export const DASHBOARD_WORDS: ShellWords = {
  title: 'payreq dashboard',
  loading: 'Loading the dashboard…',
  noscript: 'The dashboard needs JavaScript: turn it on to sign in.',
};

export type DashboardSettings = Pick<Config, 'baseUrl' | 'authUrl' | 'payUrl' | 'dashboardUrl'>;

/**
 * What the dashboard reads from `<meta name="payreq-config">`. The browser side declares the
 * same shape in src/dashboard/app/config.ts; nothing in it is secret.
 */
export interface DashboardConfig {
  /** The dashboard's own path ('' at the root): its pages' URLs start with it. */
  readonly basePath: string;
  /** The API's base: only its path ('' at the root) where it shares the dashboard's origin. */
  readonly apiBase: string;
  /** The auth API's, likewise. */
  readonly authBase: string;
  /** Per network id, its explorer's page of a transaction (`{txHash}` stands for it), or null. */
  readonly explorers: Readonly<Record<string, string | null>>;
  /** The networks served: where destinations and links can be. */
  readonly networks: readonly {
    readonly id: string;
    readonly name: string;
    readonly chainId: number;
    readonly kind: 'evm' | 'tron';
  }[];
  /**
   * The tokens destinations and the dashboard's payouts take: the curated currencies of the
   * networks served (the token list's others are refused as a destination's token). A native
   * currency's address is the 0xEeee… sentinel, as destinations name it.
   */
  readonly tokens: readonly {
    readonly id: string;
    readonly symbol: string;
    readonly address: string;
    readonly network: string;
  }[];
}

const NATIVE_TOKEN = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';

export function dashboardConfig(config: DashboardSettings, chains: ChainRegistry): DashboardConfig {
  const own = new URL(config.dashboardUrl).origin;
  // An API on the dashboard's own origin is called by path: the page then works under any
  // name the origin answers to (127.0.0.1 for a BASE_URL of localhost), and the CSP's 'self'
  // and the cookie follow the name in the address bar.
  const base = (url: string) => (new URL(url).origin === own ? pathOf(url) : url);
  return {
    basePath: pathOf(config.dashboardUrl),
    apiBase: base(config.baseUrl),
    authBase: base(config.authUrl),
    explorers: Object.fromEntries(
      chains.networks.map((network) => [network.id, chains.explorerTxUrl(network.id, '{txHash}')]),
    ),
    networks: chains.networks.map(({ id, name, chainId, kind }) => ({ id, name, chainId, kind })),
    tokens: chains.currencies
      .filter((currency) => currency.network !== 'fiat' && chains.isCurated(currency))
      .map((currency) => ({
        id: currency.id,
        symbol: currency.symbol,
        address: currency.type === 'ETH' ? NATIVE_TOKEN : currency.address,
        network: currency.network,
      })),
  };
}

/** The first segments of the API's own paths: a dashboard there would shadow them. */
const API_SEGMENTS = new Set(['v1', 'v2', 'docs', 'openapi.json', 'healthz', 'readyz', 'sandbox']);

/**
 * The path this process serves the dashboard at, or null when it does not: DASHBOARD_URL's
 * path, unless that is empty, the pay page's, or under the API's own paths (the dashboard then
 * lives elsewhere).
 */
export function servedDashboardPath(config: DashboardSettings): string | null {
  const path = pathOf(config.dashboardUrl);
  const first = path.split('/')[1] ?? '';
  if (path === '' || path === pathOf(config.payUrl) || API_SEGMENTS.has(first)) return null;
  return path;
}

/**
 * Whether the dashboard's pages can hold the auth API's session cookie: it is SameSite=Lax, so
 * a browser sends it only between the same site (scheme and registrable domain; approximated
 * here by the host's last two labels, or the whole host for an IP address or a single label).
 */
export function sameSite(a: string, b: string): boolean {
  const [left, right] = [new URL(a), new URL(b)];
  const site = (host: string) =>
    /^[\d.]+$|^\[/.test(host) || !host.includes('.') ? host : host.split('.').slice(-2).join('.');
  return left.protocol === right.protocol && site(left.hostname) === site(right.hostname);
}

/**
 * The shell's headers: the pay page's policy (no inline code, no referrer), calls to the API's
 * and the auth API's origins, and no framing at all (a signed-in page).
 */
export function dashboardHeaders(config: DashboardSettings): Record<string, string> {
  return shellHeaders({
    url: config.dashboardUrl,
    frameAncestors: "'none'",
    calls: [config.baseUrl, config.authUrl],
  });
}
