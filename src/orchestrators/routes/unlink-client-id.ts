import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { unlinkClientId } from '../links.ts';
import { LinkSchema, ORCHESTRATOR_AUTH, ORCHESTRATOR_TAGS, orchestratorIdOf } from '../schemas.ts';

const Params = Type.Object({ clientId: Type.String({ minLength: 1 }) });

export function registerUnlinkClientId(app: App, deps: { db: Database; clock: Clock }): void {
  app.delete(
    '/v2/orchestrators/client-ids/:clientId',
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'Unlink a client ID (it cannot be linked again)',
        params: Params,
        response: { 200: Type.Object({ link: LinkSchema }) },
      },
    },
    async (request) => {
      const orchestratorId = orchestratorIdOf(request);
      const clientId = request.params.clientId;
      return { link: await unlinkClientId(deps.db, deps.clock, orchestratorId, clientId) };
    },
  );
}
