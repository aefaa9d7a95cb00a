import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { listOrchestratorWebhooks } from '../../webhooks/orchestrator-webhooks.ts';
import { ORCHESTRATOR_AUTH, ORCHESTRATOR_TAGS, orchestratorIdOf } from '../schemas.ts';
import { OrchestratorWebhookSchema } from '../webhook-schemas.ts';

export function registerListOrchestratorWebhooks(app: App, deps: { db: Database }): void {
  app.get(
    '/v2/orchestrators/webhooks',
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'List the orchestrator’s endpoints, inactive ones included, oldest first',
        response: {
          200: Type.Object(
            { webhooks: Type.Array(OrchestratorWebhookSchema) },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => ({
      webhooks: await listOrchestratorWebhooks(deps.db, orchestratorIdOf(request)),
    }),
  );
}
