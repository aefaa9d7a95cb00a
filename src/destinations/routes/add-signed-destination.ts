import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { destinationBody } from '../destination-body.ts';
import { AUTH, DestinationRef, SignedBody, TAGS } from '../schemas.ts';
import { addSignedDestination, type SignedDeps } from '../signed.ts';

export function registerAddSignedDestination(app: App, deps: SignedDeps): void {
  app.post(
    '/v2/payee-destination',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Add (or reactivate) a destination with the wallet’s signature',
        body: SignedBody,
        response: { 201: DestinationRef },
      },
    },
    async (request, reply) => {
      const row = await addSignedDestination(deps, accountIdOf(request), request.body);
      return reply.code(201).send(destinationBody(row));
    },
  );
}
