import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import {
  ORCHESTRATOR_AUTH,
  ORCHESTRATOR_TAGS,
  orchestratorIdOf,
} from '../../orchestrators/schemas.ts';
import { feeConfigAnswer, listFeeConfigs } from '../fee-configs.ts';
import { ClientIdSchema, FeeConfigSchema } from '../schemas.ts';

const Query = Type.Object({ clientId: Type.Optional(ClientIdSchema) });

export function registerListFeeConfigs(app: App, deps: { db: Database }): void {
  app.get(
    '/v2/orchestrators/fee-configs',
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'List fee configs: the orchestrator’s defaults, or with clientId that client ID’s',
        description: 'Disabled configs included, oldest first.',
        querystring: Query,
        response: {
          200: Type.Array(FeeConfigSchema),
          403: {
            description: 'clientId is not linked to this orchestrator',
            $ref: 'ErrorEnvelope',
          },
          404: { description: 'No such client ID', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request) => {
      const configs = await listFeeConfigs(
        deps.db,
        orchestratorIdOf(request),
        request.query.clientId,
      );
      return configs.map(feeConfigAnswer);
    },
  );
}
