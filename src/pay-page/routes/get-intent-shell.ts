import { Type } from 'typebox';
import { AppError } from '../../base/errors.ts';
import type { Config } from '../../config/config.ts';
import type { App } from '../../http/types.ts';
import { renderShell } from '../../http/web-shell.ts';
import { INTENT_PAGE_WORDS, intentPageConfig, intentShellHeaders } from '../intent-shell.ts';
import { pageConfig, payPagePath } from '../shell.ts';
import type { ShellDeps } from './get-shell.ts';

export interface IntentShellDeps extends ShellDeps {
  readonly config: ShellDeps['config'] & Pick<Config, 'authUrl'>;
}

/**
 * `<path>/link/<accessToken>`: the page where a merchant accepts a platform's link intent. The
 * same build as the pay page, its own shell (rendered once here); the page reads the token
 * from its path and checks it with the auth API once the merchant has signed in, so this
 * answer is the same for every token, known or not. A 503 until the page is built.
 */
export function registerIntentShell(app: App, deps: IntentShellDeps): void {
  const shell =
    deps.build.status === 'built'
      ? renderShell({
          basePath: payPagePath(deps.config.payUrl),
          manifest: deps.build.build.manifest,
          config: {
            ...pageConfig({
              baseUrl: deps.config.baseUrl,
              clientId: deps.clientId,
              chains: deps.chains,
            }),
            intent: intentPageConfig({ authUrl: deps.config.authUrl, chains: deps.chains }),
          },
          words: INTENT_PAGE_WORDS,
        })
      : null;
  const headers = intentShellHeaders(deps.config);

  app.get(
    `${payPagePath(deps.config.payUrl)}/link/:token`,
    {
      config: { admission: false },
      schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 200 }) }) },
    },
    async (_request, reply) => {
      if (shell === null) {
        throw new AppError('pay_page_not_built', 'The pay page is not built: run `npm run build`');
      }
      return reply.headers(headers).send(shell);
    },
  );
}
