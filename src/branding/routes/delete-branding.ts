import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import {
  ORCHESTRATOR_AUTH,
  ORCHESTRATOR_TAGS,
  orchestratorIdOf,
} from '../../orchestrators/schemas.ts';
import { brandingLevel, removeBranding } from '../brandings.ts';
import { BRANDING_URL, ClientIdQuery } from '../schemas.ts';

export function registerDeleteBranding(app: App, deps: { db: Database }): void {
  app.delete(
    BRANDING_URL,
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'Remove a branding (the page’s defaults again); idempotent',
        description: '`removed` is false when there was none.',
        querystring: ClientIdQuery,
        response: {
          200: Type.Object({ removed: Type.Boolean() }, { additionalProperties: false }),
          403: {
            description: 'The client ID is not linked to this orchestrator',
            $ref: 'ErrorEnvelope',
          },
        },
      },
    },
    async (request) => {
      const orchestratorId = orchestratorIdOf(request);
      const level = await brandingLevel(deps.db, orchestratorId, request.query.clientId);
      return removeBranding(deps.db, orchestratorId, level);
    },
  );
}
