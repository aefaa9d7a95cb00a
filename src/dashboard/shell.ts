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
  readonly apiBase: string;
  readonly authBase: string;
}

export function dashboardConfig(config: DashboardSettings): DashboardConfig {
  return {
    basePath: pathOf(config.dashboardUrl),
    apiBase: config.baseUrl,
    authBase: config.authUrl,
  };
}

/**
 * The path this process serves the dashboard at, or null when it does not: DASHBOARD_URL's
 * path, unless that is empty or the pay page's (the dashboard then lives elsewhere).
 */
export function servedDashboardPath(config: DashboardSettings): string | null {
  const path = pathOf(config.dashboardUrl);
  return path === '' || path === pathOf(config.payUrl) ? null : path;
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
