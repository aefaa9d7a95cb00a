import { Type } from 'typebox';
import type { App } from './types.ts';
import { type LoadedBuild, negotiateEncoding } from './web-assets.ts';

/** Hashed names: a file's content never changes under its name. */
const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * `<basePath>/assets/<file>`: a built file of a browser app, compressed as the browser
 * accepts. Public, outside admission control and the OpenAPI document.
 */
export function registerWebAppAssets(
  app: App,
  deps: { readonly basePath: string; readonly build: LoadedBuild },
): void {
  const build = deps.build.status === 'built' ? deps.build.build : null;
  app.get(
    `${deps.basePath}/assets/:file`,
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
