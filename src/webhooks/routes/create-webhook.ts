import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { AUTH, owner, TAGS } from '../ownership.ts';
import { type CreateWebhookDeps, createWebhook } from '../registrations.ts';

export function registerCreateWebhook(app: App, deps: CreateWebhookDeps): void {
  app.post(
    '/v1/webhook',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Register an endpoint; the signing secret is returned once',
        body: Type.Object({ url: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
        response: { 201: Type.Object({ id: Type.String(), secret: Type.String() }) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createWebhook(deps, owner(request), request.body.url)),
  );
}
