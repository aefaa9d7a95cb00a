import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { linkClientId } from '../links.ts';
import { LinkSchema, ORCHESTRATOR_AUTH, ORCHESTRATOR_TAGS, orchestratorIdOf } from '../schemas.ts';

const Body = Type.Object(
  { clientId: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);

export function registerLinkClientId(app: App, deps: { db: Database }): void {
  app.post(
    '/v2/orchestrators/client-ids',
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'Link a client ID to this orchestrator',
        body: Body,
        response: {
          200: Type.Object({ link: LinkSchema, alreadyLinked: Type.Boolean() }),
          201: Type.Object({ link: LinkSchema, alreadyLinked: Type.Boolean() }),
          404: { description: 'No such client ID', $ref: 'ErrorEnvelope' },
          409: {
            description: 'Linked to another orchestrator, or unlinked before',
            $ref: 'ErrorEnvelope',
          },
        },
      },
    },
    async (request, reply) => {
      const result = await linkClientId(deps.db, orchestratorIdOf(request), request.body.clientId);
      return reply.code(result.alreadyLinked ? 200 : 201).send(result);
    },
  );
}
