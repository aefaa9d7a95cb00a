import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { destinationV1Body } from '../destination-body.ts';
import { activeDestinationOf } from '../destinations.ts';
import { sessionWallet } from '../session-wallet.ts';
import { AUTH, DestinationV1, TAGS } from '../v1-schemas.ts';

export function registerGetSessionDestination(app: App, deps: { db: Database }): void {
  app.get(
    '/v1/payee-destination',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'The session wallet’s active destination, or null',
        response: { 200: Type.Union([DestinationV1, Type.Null()]) },
      },
    },
    async (request) => {
      const wallet = await sessionWallet(deps.db, request);
      const row = await activeDestinationOf(deps.db, accountIdOf(request), wallet);
      return row ? destinationV1Body(row) : null;
    },
  );
}
