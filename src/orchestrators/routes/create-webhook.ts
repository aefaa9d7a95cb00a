import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { SecretBox } from '../../base/secret-box.ts';
import type { WebhookConfig } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { createOrchestratorWebhook } from '../../webhooks/orchestrator-webhooks.ts';
import { ORCHESTRATOR_AUTH, ORCHESTRATOR_TAGS, orchestratorIdOf } from '../schemas.ts';
import { OrchestratorWebhookSchema } from '../webhook-schemas.ts';

const Body = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'https receiver; the same URL cannot be registered twice',
    }),
  },
  { additionalProperties: false },
);

const Created = Type.Object(
  {
    webhook: OrchestratorWebhookSchema,
    secret: Type.String({ description: 'The signing secret (whsec_…), shown this once' }),
  },
  { additionalProperties: false },
);

export function registerCreateOrchestratorWebhook(
  app: App,
  deps: { db: Database; clock: Clock; secretBox: SecretBox; config: WebhookConfig },
): void {
  app.post(
    '/v2/orchestrators/webhooks',
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'Register an endpoint for the orchestrator’s events, and get its secret once',
        description:
          'Deliveries are signed like every webhook (x-request-network-signature: hex HMAC-SHA256 of the raw body with the secret). A URL this orchestrator registered before, active or not, answers 409 webhook_url_taken.',
        body: Body,
        response: {
          201: Created,
          409: { description: 'The URL is registered already', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request, reply) => {
      const created = await createOrchestratorWebhook(
        deps,
        orchestratorIdOf(request),
        request.body.url,
      );
      return reply.code(201).send(created);
    },
  );
}
