import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import { MAX_PAGE_NUMBER, MAX_PAGE_SIZE } from '../../http/pages.ts';
import type { App } from '../../http/types.ts';
import { listLinks } from '../links.ts';
import { LinkSchema, ORCHESTRATOR_AUTH, ORCHESTRATOR_TAGS, orchestratorIdOf } from '../schemas.ts';

const DEFAULT_PAGE_SIZE = 20;

const Query = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_NUMBER, default: 1 })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
    ),
  },
  { additionalProperties: false },
);
const Response = Type.Object(
  {
    links: Type.Array(LinkSchema),
    total: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
  },
  { additionalProperties: false },
);

export function registerListClientIdLinks(app: App, deps: { db: Database }): void {
  app.get(
    '/v2/orchestrators/client-ids',
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'List linked client IDs',
        querystring: Query,
        response: { 200: Response },
      },
    },
    async (request) => {
      const page = request.query.page ?? 1;
      const limit = request.query.limit ?? DEFAULT_PAGE_SIZE;
      const { links, total } = await listLinks(deps.db, orchestratorIdOf(request), page, limit);
      return { links, total, page, limit };
    },
  );
}
