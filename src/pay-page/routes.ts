import { Type } from 'typebox';
import { AppError } from '../base/errors.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Config } from '../config/config.ts';
import type { App } from '../http/types.ts';
import { type LoadedBuild, negotiateEncoding } from './assets.ts';
import { pageConfig, renderShell } from './shell.ts';

/**
 * The hosted pay page at PAY_URL: `<path>/` answers the HTML shell and `<path>/assets/<file>`
 * the built files, where `<path>` is PAY_URL's path (empty at the root). Both are public (the
 * page's own API calls carry its client ID) and kept out of the OpenAPI document.
 */

/** Hashed names: a file's content never changes under its name. */
const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

type PageSettings = Pick<Config, 'baseUrl' | 'payUrl' | 'payFrameAncestors'>;

export interface PayPageDeps {
  readonly config: PageSettings;
  readonly chains: ChainRegistry;
  /** The pay page's own client ID (ensurePayPageClientId). */
  readonly clientId: string;
  readonly build: LoadedBuild;
}

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
export function shellHeaders(config: PageSettings): Record<string, string> {
  const payOrigin = new URL(config.payUrl).origin;
  const apiOrigin = new URL(config.baseUrl).origin;
  const connect = apiOrigin === payOrigin ? "'self'" : `'self' ${apiOrigin}`;
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

export function payPageRoutes(app: App, deps: PayPageDeps): void {
  const path = payPagePath(deps.config.payUrl);
  const build = deps.build.status === 'built' ? deps.build.build : null;
  if (deps.build.status === 'missing') {
    app.log.warn(
      { reason: deps.build.reason },
      'the pay page is not built (run `npm run build`): PAY_URL answers 503 until it is',
    );
  }
  const shell =
    build === null
      ? null
      : renderShell({
          basePath: path,
          manifest: build.manifest,
          config: pageConfig({
            baseUrl: deps.config.baseUrl,
            clientId: deps.clientId,
            chains: deps.chains,
          }),
        });
  const headers = shellHeaders(deps.config);

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

  app.get(
    `${path}/assets/:file`,
    {
      config: { admission: false },
      schema: { hide: true, params: Type.Object({ file: Type.String() }) },
    },
    async (request, reply) => {
      // Only what the manifest lists: a name is a key here, never a path on disk.
      const asset = build?.assets.get(request.params.file);
      if (asset === undefined) return reply.callNotFound();
      const wanted = negotiateEncoding(request.headers['accept-encoding']);
      const answer =
        wanted === null ? { body: asset.body, encoding: null } : await asset.encoded(wanted);
      reply.headers({
        'content-type': asset.contentType,
        'cache-control': ASSET_CACHE_CONTROL,
        'x-content-type-options': 'nosniff',
        vary: 'accept-encoding',
      });
      if (answer.encoding !== null) reply.header('content-encoding', answer.encoding);
      return reply.send(answer.body);
    },
  );
}
