import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { SecretBox } from '../../base/secret-box.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { AUTH, findWebhook, IdParams, TAGS } from '../ownership.ts';
import { setRetryPolicy } from '../registrations.ts';
import { RetryPolicyBody } from '../retry-policy.ts';
import { WebhookSchema } from '../schemas.ts';

export function registerSetRetryPolicy(
  app: App,
  deps: { db: Database; clock: Clock; secretBox: SecretBox },
): void {
  app.patch(
    '/v1/webhook/:id',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary:
          'Change an endpoint’s retry policy past the reference’s three retries (null: the deployment’s)',
        params: IdParams,
        body: Type.Object({ retryPolicy: RetryPolicyBody }, { additionalProperties: false }),
        response: { 200: WebhookSchema },
      },
    },
    async (request) => {
      const row = await findWebhook(deps.db, request, request.params.id);
      return setRetryPolicy(deps, row, request.body.retryPolicy);
    },
  );
}
