import { AppError } from '../../base/errors.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { App } from '../../http/types.ts';
import type { LoadedBuild } from '../../http/web-assets.ts';
import { renderShell } from '../../http/web-shell.ts';
import {
  PAY_PAGE_WORDS,
  type PageSettings,
  pageConfig,
  payPageHeaders,
  payPagePath,
} from '../shell.ts';

export interface ShellDeps {
  readonly config: PageSettings;
  readonly chains: ChainRegistry;
  /** The pay page's own client ID (ensurePayPageClientId). */
  readonly clientId: string;
  readonly build: LoadedBuild;
}

/** `<path>/`: the HTML shell, rendered once here; a 503 until the page is built. */
export function registerPayPageShell(app: App, deps: ShellDeps): void {
  const path = payPagePath(deps.config.payUrl);
  if (deps.build.status === 'missing') {
    app.log.warn(
      { reason: deps.build.reason },
      'the pay page is not built (run `npm run build`): PAY_URL answers 503 until it is',
    );
  }
  const shell =
    deps.build.status === 'built'
      ? renderShell({
          basePath: path,
          manifest: deps.build.build.manifest,
          config: pageConfig({
            baseUrl: deps.config.baseUrl,
            clientId: deps.clientId,
            chains: deps.chains,
          }),
          words: PAY_PAGE_WORDS,
        })
      : null;
  const headers = payPageHeaders(deps.config);

  app.get(
    `${path}/`,
    { config: { admission: false }, schema: { hide: true } },
    async (_request, reply) => {
      if (shell === null) {
        throw new AppError('pay_page_not_built', 'The pay page is not built: run `npm run build`');
      }
      return reply.headers(headers).send(shell);
    },
  );
}
