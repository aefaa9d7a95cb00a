import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { type DeliveryDeps, sendTestEvent } from '../deliveries.ts';
import { AUTH, owner, TAGS } from '../ownership.ts';

export function registerSendTestEvent(app: App, deps: DeliveryDeps): void {
  app.post(
    '/v1/webhook/test',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Send a sample event to every active endpoint of the caller (flagged as a test)',
        body: Type.Object(
          { eventType: Type.String({ minLength: 1 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ sent: Type.Integer(), deliveryIds: Type.Array(Type.String()) }),
        },
      },
    },
    async (request) => sendTestEvent(deps, owner(request), request.body.eventType),
  );
}
