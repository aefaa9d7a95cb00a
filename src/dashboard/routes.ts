import type { ChainRegistry } from '../chains/registry.ts';
import type { App } from '../http/types.ts';
import { registerWebAppAssets } from '../http/web-asset-route.ts';
import type { LoadedBuild } from '../http/web-assets.ts';
import { registerDashboardShell } from './routes/get-shell.ts';
import { type DashboardSettings, sameSite, servedDashboardPath } from './shell.ts';

/**
 * The merchant dashboard at DASHBOARD_URL (`/dashboard` by default): `<path>/` and the pages
 * under it answer the HTML shell, `<path>/assets/<file>` the built files. Public, like the pay
 * page: the app signs in with the auth API and calls the public API with its session cookie.
 */
export function dashboardRoutes(
  app: App,
  deps: {
    readonly config: DashboardSettings;
    readonly chains: ChainRegistry;
    readonly build: LoadedBuild;
  },
): void {
  const path = servedDashboardPath(deps.config);
  if (path === null) {
    app.log.info(
      'DASHBOARD_URL is at the root, the pay page’s path or the API’s: this process serves no dashboard',
    );
    return;
  }
  if (!sameSite(deps.config.dashboardUrl, deps.config.authUrl)) {
    app.log.warn(
      { dashboardUrl: deps.config.dashboardUrl, authUrl: deps.config.authUrl },
      'DASHBOARD_URL and AUTH_URL are not on the same site: browsers will not send the session cookie from the dashboard, so no one can sign in there',
    );
  }
  registerWebAppAssets(app, { basePath: path, build: deps.build });
  registerDashboardShell(app, { path, ...deps });
}
