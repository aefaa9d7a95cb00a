import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { deactivateDestination } from '../destinations.ts';
import { ownDestination } from '../lookups.ts';
import { AUTH, TAGS } from '../v1-schemas.ts';

const DESTINATION_DEACTIVATED = 'Payee destination deactivated';

export function registerDeactivateDestination(
  app: App,
  deps: { db: Database; clock: Clock },
): void {
  app.patch(
    '/v1/payee-destination/deactivate',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Deactivate a destination of the session’s account (the record is kept)',
        body: Type.Object(
          { destinationId: Type.String({ minLength: 1, maxLength: 256 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ success: Type.Literal(true), message: Type.String() }),
        },
      },
    },
    async (request) => {
      const row = await ownDestination(deps.db, accountIdOf(request), request.body.destinationId);
      // Deactivating an inactive destination succeeds: the caller gets the state it asked for.
      if (row.active) await deactivateDestination(deps.db, deps.clock, row);
      return { success: true as const, message: DESTINATION_DEACTIVATED };
    },
  );
}
