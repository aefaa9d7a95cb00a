import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { destinationV1Body } from '../destination-body.ts';
import { createSessionDestination, type SessionDeps, sessionWallet } from '../session-wallet.ts';
import { AUTH, DestinationV1, TAGS, TargetBody } from '../v1-schemas.ts';

export function registerCreateSessionDestination(app: App, deps: SessionDeps): void {
  app.post(
    '/v1/payee-destination',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Create or reactivate the session wallet’s destination (its others end)',
        body: TargetBody,
        response: { 201: DestinationV1 },
      },
    },
    async (request, reply) => {
      const wallet = await sessionWallet(deps.db, request);
      const row = await createSessionDestination(deps, accountIdOf(request), wallet, request.body);
      return reply.code(201).send(destinationV1Body(row));
    },
  );
}
