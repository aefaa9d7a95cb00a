import { AppError } from '../../base/errors.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { App } from '../../http/types.ts';
import type { LoadedBuild } from '../../http/web-assets.ts';
import { renderShell } from '../../http/web-shell.ts';
import {
  DASHBOARD_WORDS,
  type DashboardSettings,
  dashboardConfig,
  dashboardHeaders,
} from '../shell.ts';

/**
 * `<path>/` and every page under it (`<path>/links`, …: the app routes in the browser, so a
 * page's address can be reloaded or shared): the HTML shell, rendered once here; a 503 until
 * the dashboard is built.
 */
export function registerDashboardShell(
  app: App,
  deps: {
    readonly path: string;
    readonly config: DashboardSettings;
    readonly chains: ChainRegistry;
    readonly build: LoadedBuild;
  },
): void {
  if (deps.build.status === 'missing') {
    app.log.warn(
      { reason: deps.build.reason },
      'the dashboard is not built (run `npm run build`): DASHBOARD_URL answers 503 until it is',
    );
  }
  const shell =
    deps.build.status === 'built'
      ? renderShell({
          basePath: deps.path,
          manifest: deps.build.build.manifest,
          config: dashboardConfig(deps.config, deps.chains),
          words: DASHBOARD_WORDS,
        })
      : null;
  const headers = dashboardHeaders(deps.config);
  for (const route of [`${deps.path}/`, `${deps.path}/*`]) {
    app.get(
      route,
      { config: { admission: false }, schema: { hide: true } },
      async (request, reply) => {
        // A file the build does not have is no page either.
        if (request.url.startsWith(`${deps.path}/assets/`)) return reply.callNotFound();
        if (shell === null) {
          throw new AppError(
            'dashboard_not_built',
            'The dashboard is not built: run `npm run build`',
          );
        }
        return reply.headers(headers).send(shell);
      },
    );
  }
}
