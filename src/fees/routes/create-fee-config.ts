import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import {
  ORCHESTRATOR_AUTH,
  ORCHESTRATOR_TAGS,
  orchestratorIdOf,
} from '../../orchestrators/schemas.ts';
import { createFeeConfig, feeConfigAnswer } from '../fee-configs.ts';
import { FEE_CONFIGS_URL, FeeConfigSchema, NewFeeConfigBody } from '../schemas.ts';

export function registerCreateFeeConfig(app: App, deps: { db: Database; clock: Clock }): void {
  app.post(
    FEE_CONFIGS_URL,
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary:
          'Create a fee config: the orchestrator’s default, or with clientId one client ID’s',
        description:
          'At least one of evmRecipientAddress and tronRecipientAddress. A level (the default, or one linked client ID) holds one payer-borne and one recipient-borne config per flow, disabled ones included: a second answers 409 fee_config_exists.',
        body: NewFeeConfigBody,
        response: {
          201: FeeConfigSchema,
          403: {
            description: 'clientId is not linked to this orchestrator',
            $ref: 'ErrorEnvelope',
          },
          404: { description: 'No such client ID', $ref: 'ErrorEnvelope' },
          409: {
            description: 'The level has a config of this flow and bearer',
            $ref: 'ErrorEnvelope',
          },
        },
      },
    },
    async (request, reply) => {
      const created = await createFeeConfig(
        deps.db,
        deps.clock,
        orchestratorIdOf(request),
        request.body,
      );
      return reply.code(201).send(feeConfigAnswer(created));
    },
  );
}
