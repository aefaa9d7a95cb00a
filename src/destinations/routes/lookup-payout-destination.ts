import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { payoutDestinationBody } from '../destination-body.ts';
import { payoutLookup } from '../lookups.ts';
import { AUTH, TAGS } from '../v1-schemas.ts';

const PayoutDestination = Type.Object({
  destinationId: Type.String(),
  walletAddress: Type.String(),
  tokenAddress: Type.String(),
  chainId: Type.Integer(),
  claimed: Type.Boolean(),
});

export function registerLookupPayoutDestination(app: App, deps: { db: Database }): void {
  app.get(
    '/v1/payee-destination/payout-lookup',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Where a recipient wallet wants to be paid (any account’s destination), or null',
        querystring: Type.Object(
          { walletAddress: Type.String({ minLength: 1, maxLength: 64 }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Union([PayoutDestination, Type.Null()]) },
      },
    },
    async (request) => {
      const row = await payoutLookup(deps.db, request.query.walletAddress);
      return row ? payoutDestinationBody(row) : null;
    },
  );
}
