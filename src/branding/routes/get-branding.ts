import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import {
  ORCHESTRATOR_AUTH,
  ORCHESTRATOR_TAGS,
  orchestratorIdOf,
} from '../../orchestrators/schemas.ts';
import { brandingLevel, getBranding } from '../brandings.ts';
import { BRANDING_URL, BrandingResponse, ClientIdQuery } from '../schemas.ts';

export function registerGetBranding(app: App, deps: { db: Database }): void {
  app.get(
    BRANDING_URL,
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'This orchestrator’s branding, or (?clientId=) one client ID’s',
        description: 'The row as stored: null fields are unset (the page’s defaults stand in).',
        querystring: ClientIdQuery,
        response: {
          200: BrandingResponse,
          403: {
            description: 'The client ID is not linked to this orchestrator',
            $ref: 'ErrorEnvelope',
          },
          404: { description: 'No branding at that level', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request) => {
      const orchestratorId = orchestratorIdOf(request);
      const level = await brandingLevel(deps.db, orchestratorId, request.query.clientId);
      return getBranding(deps.db, orchestratorId, level);
    },
  );
}
