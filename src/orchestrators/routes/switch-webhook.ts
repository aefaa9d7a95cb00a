import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { setOrchestratorWebhookActive } from '../../webhooks/orchestrator-webhooks.ts';
import { ORCHESTRATOR_AUTH, ORCHESTRATOR_TAGS, orchestratorIdOf } from '../schemas.ts';
import { WebhookAnswer, WebhookIdParams } from '../webhook-schemas.ts';

/**
 * `DELETE /v2/orchestrators/webhooks/{id}` deactivates, `PATCH` activates (the reference's
 * pair, neither with a body); both idempotent. Aliases of one switch, so one file.
 */
export function registerSwitchOrchestratorWebhook(
  app: App,
  deps: { db: Database; clock: Clock },
): void {
  for (const [method, active] of [
    ['DELETE', false],
    ['PATCH', true],
  ] as const) {
    app.route({
      method,
      url: '/v2/orchestrators/webhooks/:id',
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: active
          ? 'Activate an endpoint of the orchestrator'
          : 'Deactivate an endpoint of the orchestrator (it stays listed, and can be activated again)',
        params: WebhookIdParams,
        response: {
          200: WebhookAnswer,
          404: { description: 'No such endpoint of this orchestrator', $ref: 'ErrorEnvelope' },
        },
      },
      handler: async (request) => ({
        webhook: await setOrchestratorWebhookActive(
          deps,
          orchestratorIdOf(request),
          request.params.id,
          active,
        ),
      }),
    });
  }
}
