import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { type DeliveryDeps, redeliver } from '../deliveries.ts';
import { AUTH, findWebhook, TAGS } from '../ownership.ts';

export function registerRedeliver(app: App, deps: DeliveryDeps): void {
  app.post(
    '/v1/webhook/:id/deliveries/:deliveryId/redeliver',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Send a delivery again now (same id and body, so receivers can deduplicate)',
        params: Type.Object({
          id: Type.String({ minLength: 1 }),
          deliveryId: Type.String({ minLength: 1 }),
        }),
        response: { 202: Type.Object({ id: Type.String(), status: Type.Literal('pending') }) },
      },
    },
    async (request, reply) => {
      const hook = await findWebhook(deps.db, request, request.params.id);
      await redeliver(deps, hook, request.params.deliveryId);
      return reply.code(202).send({ id: request.params.deliveryId, status: 'pending' as const });
    },
  );
}
