import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { destinationV1Body } from '../destination-body.ts';
import { changeSessionDestination, type SessionDeps, sessionWallet } from '../session-wallet.ts';
import { AUTH, DestinationV1, TAGS, TargetBody } from '../v1-schemas.ts';

export function registerChangeSessionDestination(app: App, deps: SessionDeps): void {
  app.put(
    '/v1/payee-destination',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Change the session wallet’s active destination (policy kept unless sent)',
        body: TargetBody,
        response: { 200: DestinationV1 },
      },
    },
    async (request) => {
      const wallet = await sessionWallet(deps.db, request);
      const row = await changeSessionDestination(deps, accountIdOf(request), wallet, request.body);
      return destinationV1Body(row);
    },
  );
}
