import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { type ClientIdSurface, detailAnswer, detailBody, IdParams } from '../client-id-schemas.ts';
import { revokeClientId } from '../client-ids.ts';

export function registerRevokeClientId(
  app: App,
  deps: { db: Database; clock: Clock; surface: ClientIdSurface },
): void {
  const { surface } = deps;
  app.delete(
    `${surface.prefix}/:id`,
    {
      config: { auth: surface.auth },
      schema: {
        tags: surface.tags,
        summary: 'Revoke a client ID for good',
        params: IdParams,
        response: { 200: detailBody(surface) },
      },
    },
    async (request) => {
      const scope = { accountId: accountIdOf(request), id: request.params.id };
      return detailAnswer(surface, await revokeClientId(deps.db, deps.clock, scope));
    },
  );
}
