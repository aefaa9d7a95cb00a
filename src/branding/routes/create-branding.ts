import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import {
  ORCHESTRATOR_AUTH,
  ORCHESTRATOR_TAGS,
  orchestratorIdOf,
} from '../../orchestrators/schemas.ts';
import { brandingLevel, createBranding } from '../brandings.ts';
import { brandingFields } from '../fields.ts';
import { BRANDING_URL, BrandingBody, BrandingResponse } from '../schemas.ts';

export function registerCreateBranding(app: App, deps: { db: Database }): void {
  app.post(
    BRANDING_URL,
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'Brand the pay page: for this orchestrator, or for one of its client IDs',
        description:
          'One branding per level: a second create answers 409 branding_exists (change it with PATCH). Unset fields take the page’s defaults.',
        body: BrandingBody,
        response: {
          201: BrandingResponse,
          403: {
            description: 'The client ID is not linked to this orchestrator',
            $ref: 'ErrorEnvelope',
          },
          409: { description: 'That level has a branding already', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request, reply) => {
      const orchestratorId = orchestratorIdOf(request);
      const fields = brandingFields(request.body);
      const level = await brandingLevel(deps.db, orchestratorId, request.body.clientId);
      return reply.code(201).send(await createBranding(deps.db, orchestratorId, level, fields));
    },
  );
}
