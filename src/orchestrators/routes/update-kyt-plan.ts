import { Type } from 'typebox';
import { IdParams } from '../../auth/client-id-schemas.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { KytPlanBody, KytPlanSchema, updateKytPlan } from '../kyt-plans.ts';
import { INTENT_TAGS } from './validate-link-intent.ts';

const Params = Type.Object({ clientIdId: IdParams.properties.id });

const Updated = Type.Object(
  { clientIdId: Type.String(), orchestratorId: Type.String(), kyt: KytPlanSchema },
  { additionalProperties: false },
);

/** The merchant sets the KYT plan of one of its client IDs linked to an orchestrator. */
export function registerUpdateKytPlan(app: App, deps: { db: Database }): void {
  app.put(
    '/v1/client-id-links/:clientIdId/kyt',
    {
      config: { auth: ['session'] },
      schema: {
        tags: INTENT_TAGS,
        summary: 'Replace the KYT plan of a linked client ID',
        params: Params,
        body: KytPlanBody,
        response: {
          200: Updated,
          404: {
            description: 'No such client ID of the account, or none linked',
            $ref: 'ErrorEnvelope',
          },
        },
      },
    },
    async (request) =>
      updateKytPlan(deps.db, accountIdOf(request), request.params.clientIdId, request.body),
  );
}
