import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { LinkedOrchestratorSchema, linkedOrchestrators } from '../client-id-orchestrator.ts';
import { type ClientIdSurface, detailAnswer, detailBody, IdParams } from '../client-id-schemas.ts';
import { accountClientId } from '../client-ids.ts';

export function registerGetClientId(
  app: App,
  deps: { db: Database; surface: ClientIdSurface },
): void {
  const { surface } = deps;
  app.get(
    `${surface.prefix}/:id`,
    {
      config: { auth: surface.auth },
      schema: {
        tags: surface.tags,
        summary: 'One client ID',
        params: IdParams,
        response: {
          200: Type.Object({
            ...detailBody(surface).properties,
            orchestrator: LinkedOrchestratorSchema,
          }),
        },
      },
    },
    async (request) => {
      const record = await accountClientId(deps.db, accountIdOf(request), request.params.id);
      const linked = await linkedOrchestrators(deps.db, [record.row.id]);
      return {
        ...detailAnswer(surface, record),
        orchestrator: linked.get(record.row.id) ?? null,
      };
    },
  );
}
