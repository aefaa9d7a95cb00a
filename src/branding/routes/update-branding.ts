import type { Clock } from '../../base/clock.ts';
import { ValidationError } from '../../base/errors.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import {
  ORCHESTRATOR_AUTH,
  ORCHESTRATOR_TAGS,
  orchestratorIdOf,
} from '../../orchestrators/schemas.ts';
import { brandingLevel, updateBranding } from '../brandings.ts';
import { brandingFields } from '../fields.ts';
import { BRANDING_URL, BrandingBody, BrandingResponse } from '../schemas.ts';

export function registerUpdateBranding(app: App, deps: { db: Database; clock: Clock }): void {
  app.patch(
    BRANDING_URL,
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'Change a branding: the fields sent, the others as they were',
        description:
          'A field cannot be cleared (null is refused); DELETE the branding to start again.',
        body: BrandingBody,
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
      const fields = brandingFields(request.body);
      if (Object.keys(fields).length === 0) {
        throw new ValidationError([
          { field: 'body', message: 'must set at least one branding field' },
        ]);
      }
      const level = await brandingLevel(deps.db, orchestratorId, request.body.clientId);
      return updateBranding(deps.db, deps.clock, orchestratorId, level, fields);
    },
  );
}
