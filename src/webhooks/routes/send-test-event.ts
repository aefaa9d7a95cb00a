import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { type DeliveryDeps, sendTestEvent } from '../deliveries.ts';
import { AUTH, ClientIdField, scopeNaming, TAGS } from '../ownership.ts';

export function registerSendTestEvent(app: App, deps: DeliveryDeps): void {
  app.post(
    '/v1/webhook/test',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary:
          'Send a sample event to every active endpoint of the caller, or of the client ID named (flagged as a test)',
        body: Type.Object(
          { eventType: Type.String({ minLength: 1 }), clientId: ClientIdField },
          { additionalProperties: false },
        ),
        // 201, as Auth API 0.14.0 answers it.
        response: {
          201: Type.Object({ sent: Type.Integer(), deliveryIds: Type.Array(Type.String()) }),
        },
      },
    },
    async (request, reply) => {
      const scope = await scopeNaming(deps.db, request, request.body.clientId);
      const clientId =
        request.principal?.kind === 'clientId'
          ? request.principal.clientId.clientId
          : request.body.clientId;
      return reply
        .code(201)
        .send(await sendTestEvent(deps, scope, request.body.eventType, clientId));
    },
  );
}
