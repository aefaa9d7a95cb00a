import { and, desc, eq } from 'drizzle-orm';
import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import { payments, requests, webhookDeliveries, webhooks } from '../../db/schema.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';

/** A request has a payment or a few; each sends an event or two per endpoint. */
const MAX_DELIVERIES = 50;

const Delivery = Type.Object({
  id: Type.String({ description: 'The delivery id (its x-request-network-delivery header)' }),
  webhookId: Type.String(),
  url: Type.String({ description: 'The endpoint it went to' }),
  event: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

/**
 * Ours, for the dashboard's link page: the webhooks a request's payments caused, to the
 * account's own endpoints, newest first (the delivery log of `/v1/webhook/{id}/deliveries`,
 * read by request rather than by endpoint).
 */
export function registerListRequestDeliveries(app: App, deps: { db: Database }): void {
  app.get(
    '/v2/dashboard/deliveries',
    {
      config: { auth: ['apiKey', 'session'] },
      schema: {
        tags: ['V2/Dashboard'],
        summary: `Ours: the webhook deliveries a request's payments caused, newest first (at most ${MAX_DELIVERIES})`,
        querystring: Type.Object(
          { requestId: Type.String({ minLength: 1, maxLength: 128 }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ deliveries: Type.Array(Delivery) }) },
      },
    },
    async (request) => {
      const accountId = accountIdOf(request);
      const rows = await deps.db
        .select({ delivery: webhookDeliveries, url: webhooks.url })
        .from(requests)
        .innerJoin(payments, eq(payments.requestRowId, requests.id))
        .innerJoin(webhookDeliveries, eq(webhookDeliveries.paymentId, payments.id))
        .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
        .where(
          and(
            eq(requests.accountId, accountId),
            eq(requests.requestId, request.query.requestId.toLowerCase()),
            // Only the account's own endpoints: an orchestrator's are its business.
            eq(webhooks.accountId, accountId),
          ),
        )
        .orderBy(desc(webhookDeliveries.id))
        .limit(MAX_DELIVERIES);
      return {
        deliveries: rows.map(({ delivery, url }) => ({
          id: delivery.id,
          webhookId: delivery.webhookId,
          url,
          event: delivery.event,
          status: delivery.status,
          attempts: delivery.attempts,
          lastStatusCode: delivery.lastStatusCode,
          lastError: delivery.lastError,
          createdAt: delivery.createdAt.toISOString(),
          deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
        })),
      };
    },
  );
}
