import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { SecretBox } from '../../base/secret-box.ts';
import type { WebhookConfig } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import {
  ORCHESTRATOR_EVENT_TYPES,
  sendOrchestratorTest,
} from '../../webhooks/orchestrator-webhooks.ts';
import { ORCHESTRATOR_AUTH, ORCHESTRATOR_TAGS, orchestratorIdOf } from '../schemas.ts';

const Body = Type.Object(
  {
    eventType: Type.String({
      minLength: 1,
      maxLength: 64,
      description: `One of ${ORCHESTRATOR_EVENT_TYPES.join(', ')}`,
    }),
  },
  { additionalProperties: false },
);

export function registerTestOrchestratorWebhooks(
  app: App,
  deps: { db: Database; clock: Clock; secretBox: SecretBox; config: WebhookConfig },
): void {
  app.post(
    '/v2/orchestrators/webhooks/test',
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'Send a signed sample event to every active endpoint, now, and count the answers',
        description:
          'Each endpoint gets one POST marked x-request-network-test: true, all at once, each within the delivery timeout (WEBHOOK_TIMEOUT_MS); sent counts the 2xx answers, failed the rest. Not retried, not kept in a delivery log.',
        body: Body,
        response: {
          200: Type.Object(
            { sent: Type.Integer(), failed: Type.Integer() },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) =>
      sendOrchestratorTest(deps, orchestratorIdOf(request), request.body.eventType),
  );
}
