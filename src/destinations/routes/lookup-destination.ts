import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { destinationV1Body } from '../destination-body.ts';
import { ownDestination } from '../lookups.ts';
import { AUTH, DestinationV1, TAGS } from '../v1-schemas.ts';

export function registerLookupDestination(app: App, deps: { db: Database }): void {
  app.get(
    '/v1/payee-destination/lookup',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'One destination of the session’s account (URL-encode the id: it has # and :)',
        querystring: Type.Object(
          { destinationId: Type.String({ minLength: 1, maxLength: 256 }) },
          { additionalProperties: false },
        ),
        response: { 200: DestinationV1 },
      },
    },
    async (request) => {
      const row = await ownDestination(deps.db, accountIdOf(request), request.query.destinationId);
      return destinationV1Body(row);
    },
  );
}
