import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { ChainClients } from '../../chains/clients.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { createRequest } from '../../requests/create.ts';
import { AUTH, CreateV1RequestBody, TAGS } from '../schemas.ts';

export function registerCreateV1Request(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    clients: Pick<ChainClients, 'configured'>;
  },
): void {
  app.post(
    '/v1/request',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Create a payment request (v1; as POST /v2/request)',
        description:
          'Answers `requestID` (capital ID, as v1 does) and the `paymentReference` the other v1 operations take in their path.',
        body: CreateV1RequestBody,
        response: {
          201: Type.Object({ paymentReference: Type.String(), requestID: Type.String() }),
        },
      },
    },
    async (request, reply) => {
      const row = await createRequest(
        deps,
        { accountId: accountIdOf(request), clientId: null, origin: null },
        request.body,
      );
      return reply
        .code(201)
        .send({ paymentReference: `0x${row.paymentReference}`, requestID: row.requestId });
    },
  );
}
