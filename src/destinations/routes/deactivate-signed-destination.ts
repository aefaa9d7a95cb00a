import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { destinationBody } from '../destination-body.ts';
import { AUTH, DestinationIdParams, DestinationRef, SignedBody, TAGS } from '../schemas.ts';
import { deactivateSignedDestination, type SignedDeps } from '../signed.ts';

export function registerDeactivateSignedDestination(app: App, deps: SignedDeps): void {
  app.delete(
    '/v2/payee-destination/:destinationId',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Deactivate a destination with the wallet’s signature (the record is kept)',
        params: DestinationIdParams,
        body: SignedBody,
        response: { 200: DestinationRef },
      },
    },
    async (request) => {
      const row = await deactivateSignedDestination(
        deps,
        accountIdOf(request),
        request.params.destinationId,
        request.body,
      );
      return destinationBody(row);
    },
  );
}
