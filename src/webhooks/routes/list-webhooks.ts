import { Type } from 'typebox';
import type { SecretBox } from '../../base/secret-box.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { AUTH, owner, TAGS } from '../ownership.ts';
import { listWebhooks } from '../registrations.ts';
import { WebhookSchema } from '../schemas.ts';

export function registerListWebhooks(app: App, deps: { db: Database; secretBox: SecretBox }): void {
  app.get(
    '/v1/webhook',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'The caller’s webhooks',
        response: { 200: Type.Array(WebhookSchema) },
      },
    },
    async (request) => listWebhooks(deps, owner(request)),
  );
}
