import { Type } from 'typebox';
import { IdParams, V1_CLIENT_IDS, V2_CLIENT_IDS } from '../../auth/client-id-schemas.ts';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { unlinkOrchestrator } from '../links.ts';

const Ended = Type.Object(
  {
    orchestrator: Type.Object(
      {
        id: Type.String(),
        name: Type.String(),
        linkedAt: Type.String({ format: 'date-time' }),
        unlinkedAt: Type.String({ format: 'date-time' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/**
 * The merchant unlinks the orchestrator of one of its client IDs, on both client-ID surfaces
 * (`/v2/client-ids`, API key; `/v1/client-ids`, the dashboard's session); `{id}` is the row id,
 * as on the other client-ID routes. Here, not in `auth/`, because unlinking is the
 * orchestrators' rule (a client ID has one orchestrator for life).
 */
export function registerUnlinkOrchestrator(app: App, deps: { db: Database; clock: Clock }): void {
  for (const surface of [V2_CLIENT_IDS, V1_CLIENT_IDS]) {
    app.delete(
      `${surface.prefix}/:id/orchestrator`,
      {
        config: { auth: surface.auth },
        schema: {
          tags: surface.tags,
          summary: 'Unlink the orchestrator of a client ID (for good)',
          description:
            'The orchestrator can no longer create links for the client ID (its paired calls answer 403 client_id_not_linked) nor take fees on new ones, and can never link it again. Links made before keep what they captured.',
          params: IdParams,
          response: {
            200: Ended,
            404: {
              description: 'No such client ID of the account, or none linked',
              $ref: 'ErrorEnvelope',
            },
          },
        },
      },
      async (request) => ({
        orchestrator: await unlinkOrchestrator(
          deps.db,
          deps.clock,
          accountIdOf(request),
          request.params.id,
        ),
      }),
    );
  }
}
