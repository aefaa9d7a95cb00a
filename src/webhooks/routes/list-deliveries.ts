import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import { MAX_PAGE_SIZE } from '../../http/pages.ts';
import type { App } from '../../http/types.ts';
import { deliveryLog } from '../deliveries.ts';
import { AUTH, findWebhook, IdParams, TAGS } from '../ownership.ts';

const Attempt = Type.Object({
  attempt: Type.Integer(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  response: Type.Union([Type.String(), Type.Null()], {
    description: 'The start of the receiver’s answer (at most 500 characters), or null',
  }),
  durationMs: Type.Integer(),
  at: Type.String(),
});

const Delivery = Type.Object({
  id: Type.String(),
  event: Type.String(),
  status: Type.String(),
  test: Type.Boolean(),
  attempts: Type.Integer(),
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()]),
  deliveredAt: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  attemptLog: Type.Array(Attempt),
});

export function registerListDeliveries(app: App, deps: { db: Database }): void {
  app.get(
    '/v1/webhook/:id/deliveries',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'The delivery log of an endpoint, newest first, with every attempt',
        params: IdParams,
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE })),
            before: Type.Optional(Type.String({ description: 'A delivery id: return older ones' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ deliveries: Type.Array(Delivery) }) },
      },
    },
    async (request) => {
      const hook = await findWebhook(deps.db, request, request.params.id);
      return deliveryLog(deps.db, hook, request.query);
    },
  );
}
