import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { readBrandingAsset } from '../assets.ts';

/** Operators change these files in place, so a browser keeps them for minutes, not a year. */
const ASSET_CACHE_CONTROL = 'public, max-age=300';

/**
 * A legal page is the operator's HTML: it may style itself and show images, but runs no
 * script, submits no form and is framed by nobody.
 */
const HTML_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox";

/**
 * `<pay page path>/branding/<path>`: a file of BRANDING_DIR, public (the pay page shows it),
 * beside the page because the page resolves a branding's paths against its own.
 */
export function registerGetBrandingAsset(app: App, deps: { dir: string; basePath: string }): void {
  app.get(
    `${deps.basePath}/branding/*`,
    {
      config: { admission: false },
      schema: { hide: true, params: Type.Object({ '*': Type.String() }) },
    },
    async (request, reply) => {
      const asset = await readBrandingAsset(deps.dir, request.params['*']);
      if (asset === null) return reply.callNotFound();
      reply.headers({
        'content-type': asset.contentType,
        'cache-control': ASSET_CACHE_CONTROL,
        'last-modified': asset.modifiedAt.toUTCString(),
        'x-content-type-options': 'nosniff',
        ...(asset.contentType.startsWith('text/html') && {
          'content-security-policy': HTML_POLICY,
          'referrer-policy': 'no-referrer',
        }),
      });
      return reply.send(asset.body);
    },
  );
}
