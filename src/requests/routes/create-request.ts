import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { ChainClients } from '../../chains/clients.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf, browserOriginOf, clientIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { createRequest } from '../create.ts';
import { AUTH, CreateRequestBody, TAGS } from '../schemas.ts';

export function registerCreateRequest(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry; clients: ChainClients },
): void {
  app.post(
    '/v2/request',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Create a payment request',
        body: CreateRequestBody,
        response: {
          201: Type.Object({ paymentReference: Type.String(), requestId: Type.String() }),
        },
      },
    },
    async (request, reply) => {
      const row = await createRequest(
        deps,
        {
          accountId: accountIdOf(request),
          clientId: clientIdOf(request),
          origin: browserOriginOf(request),
        },
        request.body,
      );
      return reply
        .code(201)
        .send({ paymentReference: `0x${row.paymentReference}`, requestId: row.requestId });
    },
  );
}
