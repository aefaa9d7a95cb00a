import { Type } from 'typebox';
import { canonicalAddress } from '../../chains/address.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { destinationBody } from '../destination-body.ts';
import { activeDestinationOf } from '../destinations.ts';
import { AUTH, DestinationRef, TAGS } from '../schemas.ts';

export function registerGetWalletDestination(app: App, deps: { db: Database }): void {
  app.get(
    '/v2/payee-destination',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'The active destination of a wallet, or null',
        querystring: Type.Object(
          { walletAddress: Type.String({ minLength: 1 }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Union([DestinationRef, Type.Null()]) },
      },
    },
    async (request) => {
      const row = await activeDestinationOf(
        deps.db,
        accountIdOf(request),
        normaliseWalletQuery(request.query.walletAddress),
      );
      return row ? destinationBody(row) : null;
    },
  );
}

/** EVM wallets are stored checksummed; a query that is no address finds nothing. */
function normaliseWalletQuery(wallet: string): string {
  return canonicalAddress(wallet, { allowZero: true }) ?? wallet;
}
