import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { AUTH, ClientIdField, scopeNaming, TAGS } from '../ownership.ts';
import { type CreateWebhookDeps, createWebhook } from '../registrations.ts';
import { RetryPolicyBody } from '../retry-policy.ts';

export function registerCreateWebhook(app: App, deps: CreateWebhookDeps): void {
  app.post(
    '/v1/webhook',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary:
          'Register an endpoint, of the caller or of the client ID named; the signing secret is returned once',
        body: Type.Object(
          {
            url: Type.String({ minLength: 1 }),
            clientId: ClientIdField,
            retryPolicy: Type.Optional(RetryPolicyBody),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ id: Type.String(), secret: Type.String() }) },
      },
    },
    async (request, reply) => {
      const scope = await scopeNaming(deps.db, request, request.body.clientId);
      const { url, retryPolicy } = request.body;
      return reply.code(201).send(await createWebhook(deps, scope, url, retryPolicy));
    },
  );
}
