import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Clock } from '../base/clock.ts';
import type { Database } from '../db/client.ts';
import { MAX_PAGE_NUMBER } from '../http/pages.ts';
import type { App } from '../http/types.ts';
import { linkClientId, listLinks, unlinkClientId } from './links.ts';

const AUTH = ['orchestratorKey'] as const;
const TAGS = ['V2/Orchestrators'];
const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

const LinkSchema = Type.Object(
  {
    clientId: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('unlinked')]),
  },
  { additionalProperties: false },
);

function orchestratorIdOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal?.kind !== 'orchestratorKey') throw new Error('route needs an orchestrator key');
  return principal.orchestratorId;
}

/** Client-ID links of the calling orchestrator (`x-orchestrator-key`). */
export function orchestratorRoutes(app: App, deps: { db: Database; clock: Clock }): void {
  app.get(
    '/v2/orchestrators/client-ids',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'List linked client IDs',
        querystring: Type.Object(
          {
            page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_NUMBER, default: 1 })),
            limit: Type.Optional(
              Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              links: Type.Array(LinkSchema),
              total: Type.Integer(),
              page: Type.Integer(),
              limit: Type.Integer(),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const page = request.query.page ?? 1;
      const limit = request.query.limit ?? DEFAULT_PAGE_SIZE;
      const { links, total } = await listLinks(deps.db, orchestratorIdOf(request), page, limit);
      return { links, total, page, limit };
    },
  );

  app.post(
    '/v2/orchestrators/client-ids',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Link a client ID to this orchestrator',
        body: Type.Object(
          { clientId: Type.String({ minLength: 1 }) },
          { additionalProperties: false },
        ),
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

  app.delete(
    '/v2/orchestrators/client-ids/:clientId',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Unlink a client ID (it cannot be linked again)',
        params: Type.Object({ clientId: Type.String({ minLength: 1 }) }),
        response: { 200: Type.Object({ link: LinkSchema }) },
      },
    },
    async (request) => ({
      link: await unlinkClientId(
        deps.db,
        deps.clock,
        orchestratorIdOf(request),
        request.params.clientId,
      ),
    }),
  );
}
