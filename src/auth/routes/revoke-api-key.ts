import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import { AppError } from '../../base/errors.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { API_KEY_NOT_FOUND, revokeAccountApiKey } from '../api-keys.ts';
import { API_KEY_AUTH, API_KEY_TAGS } from '../schemas.ts';

const Params = Type.Object({ id: Type.String({ description: 'The key’s `id` (uuid)' }) });
const Response = Type.Object({
  id: Type.String({ format: 'uuid' }),
  revokedAt: Type.String({ format: 'date-time' }),
});

export function registerRevokeApiKey(app: App, deps: { db: Database; clock: Clock }): void {
  app.delete(
    '/v1/api-keys/:id',
    {
      config: { auth: API_KEY_AUTH },
      schema: {
        tags: API_KEY_TAGS,
        summary: 'Revoke an API key for good (revoking again answers the first revocation)',
        params: Params,
        response: { 200: Response },
      },
    },
    async (request) => {
      const accountId = accountIdOf(request);
      const revoked = await revokeAccountApiKey(deps.db, deps.clock, accountId, request.params.id);
      if (revoked === null) throw new AppError('api_key_not_found', API_KEY_NOT_FOUND);
      return { id: revoked.id, revokedAt: revoked.revokedAt.toISOString() };
    },
  );
}
