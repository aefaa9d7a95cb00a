import { and, desc, eq, inArray, isNull, lt, lte, or } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Clock } from '../base/clock.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { webhookAttempts, webhookDeliveries, webhooks } from '../db/schema.ts';
import type { App } from '../http/types.ts';
import { EVENT_TYPES, isEventType, sampleEvent } from './events.ts';
import { enqueue } from './outbox.ts';
import { AUTH, findWebhook, IdParams, ownedBy, owner, TAGS } from './ownership.ts';

const DEFAULT_PAGE = 20;

/**
 * The delivery side of `/v1/webhook`: a test event to every active endpoint of the caller, the
 * delivery log of an endpoint, and redelivery. Registered by `webhookRoutes`.
 */
export function webhookDeliveryRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    wake?: () => void;
  },
): void {
  const find = (request: FastifyRequest, id: string) => findWebhook(deps.db, request, id);

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
    async (request) => {
      const { eventType } = request.body;
      if (!isEventType(eventType)) {
        throw new ValidationError([
          { field: 'eventType', message: `must be one of ${EVENT_TYPES.join(', ')}` },
        ]);
      }
      const now = deps.clock.now();
      const rows = await deps.db
        .select({ id: webhooks.id })
        .from(webhooks)
        .where(and(ownedBy(owner(request)), eq(webhooks.active, true)));
      const deliveryIds = await enqueue(
        deps.db,
        now,
        rows.map((r) => r.id),
        [{ event: eventType, payload: sampleEvent(eventType, now) }],
        {
          test: true,
        },
      );
      deps.wake?.();
      return { sent: deliveryIds.length, deliveryIds };
    },
  );

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
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
            before: Type.Optional(Type.String({ description: 'A delivery id: return older ones' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            deliveries: Type.Array(
              Type.Object({
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
                attemptLog: Type.Array(
                  Type.Object({
                    attempt: Type.Integer(),
                    statusCode: Type.Union([Type.Integer(), Type.Null()]),
                    error: Type.Union([Type.String(), Type.Null()]),
                    durationMs: Type.Integer(),
                    at: Type.String(),
                  }),
                ),
              }),
            ),
          }),
        },
      },
    },
    async (request) => {
      const hook = await find(request, request.params.id);
      const limit = request.query.limit ?? DEFAULT_PAGE;
      const { before } = request.query;
      if (before !== undefined) {
        // A cursor from another log (or none at all) would page through a meaningless range.
        const [cursor] = await deps.db
          .select({ id: webhookDeliveries.id })
          .from(webhookDeliveries)
          .where(and(eq(webhookDeliveries.id, before), eq(webhookDeliveries.webhookId, hook.id)));
        if (!cursor) {
          throw new ValidationError([
            { field: 'before', message: 'is not a delivery of this webhook' },
          ]);
        }
      }
      const rows = await deliveryPageQuery(deps.db, hook.id, before, limit);
      const attempts =
        rows.length === 0
          ? []
          : await deps.db
              .select()
              .from(webhookAttempts)
              .where(
                inArray(
                  webhookAttempts.deliveryId,
                  rows.map((r) => r.id),
                ),
              )
              .orderBy(webhookAttempts.attempt);
      return {
        deliveries: rows.map((row) => ({
          id: row.id,
          event: row.event,
          status: row.status,
          test: row.test,
          attempts: row.attempts,
          lastStatusCode: row.lastStatusCode,
          lastError: row.lastError,
          nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
          deliveredAt: row.deliveredAt?.toISOString() ?? null,
          createdAt: row.createdAt.toISOString(),
          attemptLog: attempts
            .filter((a) => a.deliveryId === row.id)
            .map((a) => ({
              attempt: a.attempt,
              statusCode: a.statusCode,
              error: a.error,
              durationMs: a.durationMs,
              at: a.at.toISOString(),
            })),
        })),
      };
    },
  );

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
      const hook = await find(request, request.params.id);
      const now = deps.clock.now();
      const ofHook = and(
        eq(webhookDeliveries.id, request.params.deliveryId),
        eq(webhookDeliveries.webhookId, hook.id),
      );
      // Not while a dispatcher holds it: two sends at once, and the later result overwriting
      // the earlier one, is what the lease exists to prevent.
      const updated = await deps.db
        .update(webhookDeliveries)
        .set({ status: 'pending', nextAttemptAt: now })
        .where(
          and(
            ofHook,
            or(isNull(webhookDeliveries.lockedUntil), lte(webhookDeliveries.lockedUntil, now)),
          ),
        )
        .returning({ id: webhookDeliveries.id });
      if (updated.length === 0) {
        const [held] = await deps.db
          .select({ id: webhookDeliveries.id })
          .from(webhookDeliveries)
          .where(ofHook);
        if (!held) throw new AppError('delivery_not_found', 'Delivery not found');
        throw new AppError(
          'delivery_in_flight',
          'Delivery is being sent right now; try again once this attempt ends',
        );
      }
      deps.wake?.();
      return reply.code(202).send({ id: request.params.deliveryId, status: 'pending' as const });
    },
  );
}

/**
 * A page of an endpoint's delivery log, newest first: one walk of the (webhook_id, id) index
 * from `before` (ids are ULIDs, so id order is creation order). Exported so the EXPLAIN test
 * plans the statement the route runs.
 */
export function deliveryPageQuery(
  db: Database,
  webhookId: string,
  before: string | undefined,
  limit: number,
) {
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhookId),
        before === undefined ? undefined : lt(webhookDeliveries.id, before),
      ),
    )
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit);
}
