import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { destinationBody } from '../destination-body.ts';
import { ownDestination } from '../lookups.ts';
import { AUTH, DestinationIdParams, DestinationRef, TAGS } from '../schemas.ts';
import { parseTarget } from '../target.ts';

export function registerGetDestination(
  app: App,
  deps: { db: Database; chains: ChainRegistry },
): void {
  app.get(
    '/v2/payee-destination/:destinationId',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'One destination (URL-encode the id: it contains # and :)',
        params: DestinationIdParams,
        response: { 200: DestinationRef },
      },
    },
    async (request) => {
      const { destinationId } = request.params;
      // Unlike /v1's lookup, an id on a chain or token no longer served is a 400 here.
      parseTarget(deps.chains, destinationId);
      return destinationBody(await ownDestination(deps.db, accountIdOf(request), destinationId));
    },
  );
}
