import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { SecretBox } from '../../base/secret-box.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { AUTH, findWebhook, IdParams, TAGS } from '../ownership.ts';
import { setWebhookActive } from '../registrations.ts';
import { WebhookSchema } from '../schemas.ts';

export function registerUpdateWebhook(
  app: App,
  deps: { db: Database; clock: Clock; secretBox: SecretBox },
): void {
  app.put(
    '/v1/webhook/:id',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Switch an endpoint on or off',
        params: IdParams,
        body: Type.Object({ active: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: WebhookSchema },
      },
    },
    async (request) => {
      const row = await findWebhook(deps.db, request, request.params.id);
      return setWebhookActive(deps, row, request.body.active);
    },
  );
}
