import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { AUTH, findWebhook, IdParams, TAGS } from '../ownership.ts';
import { deleteWebhook } from '../registrations.ts';

export function registerDeleteWebhook(app: App, deps: { db: Database; clock: Clock }): void {
  app.delete(
    '/v1/webhook/:id',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Delete an endpoint for good (its delivery log stays)',
        params: IdParams,
        response: { 200: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) },
      },
    },
    async (request) => {
      const row = await findWebhook(deps.db, request, request.params.id);
      await deleteWebhook(deps, row);
      return { id: row.id, deleted: true as const };
    },
  );
}
