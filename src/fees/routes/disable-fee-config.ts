import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import {
  ORCHESTRATOR_AUTH,
  ORCHESTRATOR_TAGS,
  orchestratorIdOf,
} from '../../orchestrators/schemas.ts';
import { disableFeeConfig, feeConfigAnswer } from '../fee-configs.ts';
import { ClientIdSchema, FeeConfigParams, FeeConfigSchema } from '../schemas.ts';

const Query = Type.Object({
  clientId: Type.Optional(
    Type.String({
      ...ClientIdSchema,
      description: 'When sent, the config must be this client ID’s',
    }),
  ),
});

export function registerDisableFeeConfig(app: App, deps: { db: Database; clock: Clock }): void {
  app.delete(
    '/v2/orchestrators/fee-configs/:id',
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'Disable a fee config',
        description:
          'The config stays, disabled (again: the same answer); its flow and bearer stay taken at its level. PATCH status active enables it again.',
        params: FeeConfigParams,
        querystring: Query,
        response: {
          200: FeeConfigSchema,
          404: { description: 'No such fee config of this orchestrator', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request) => {
      const disabled = await disableFeeConfig(
        deps.db,
        deps.clock,
        orchestratorIdOf(request),
        request.params.id,
        request.query.clientId,
      );
      return feeConfigAnswer(disabled);
    },
  );
}
