import { randomBytes } from 'node:crypto';
import { and, desc, eq, inArray, isNull, lt, lte, or, type SQL } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ulid } from 'ulid';
import type { Clock } from '../clock.ts';
import type { WebhookConfig } from '../config.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/client.ts';
import { webhookAttempts, webhookDeliveries, webhooks } from '../db/schema.ts';
import { AppError, ValidationError } from '../errors.ts';
import { scopeOf } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import { EVENT_TYPES, isEventType, sampleEvent } from './events.ts';
import { enqueue } from './outbox.ts';
import { checkWebhookUrl } from './url-policy.ts';

const AUTH = ['clientId', 'apiKey', 'session'] as const;
const TAGS = ['V1/Webhooks'];
const SECRET_PREFIX = 'whsec_';
const MAX_WEBHOOKS_PER_OWNER = 20;
const DEFAULT_PAGE = 20;

type WebhookRow = typeof webhooks.$inferSelect;

/** A client ID owns the webhooks it registers; an API key or a session sees its account's. */
const owner = scopeOf;

function ownedBy(scope: { accountId: string; clientIdId: string | null }): SQL | undefined {
  return and(
    eq(webhooks.accountId, scope.accountId),
    isNull(webhooks.deletedAt),
    scope.clientIdId === null ? undefined : eq(webhooks.clientIdId, scope.clientIdId),
  );
}

function webhookBody(row: WebhookRow) {
  return { id: row.id, url: row.url, active: row.active, createdAt: row.createdAt.toISOString() };
}

const WebhookSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  active: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * Webhook endpoints on the auth API (`/v1/webhook`). The signing secret is shown once, at
 * creation, and stored sealed with SECRET_KEY; losing it means delete and register again.
 */
export function webhookRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    secretBox: SecretBox;
    config: WebhookConfig;
    wake?: () => void;
  },
): void {
  const find = async (request: FastifyRequest, id: string): Promise<WebhookRow> => {
    const [row] = await deps.db
      .select()
      .from(webhooks)
      .where(and(eq(webhooks.id, id), ownedBy(owner(request))));
    if (!row) throw new AppError('webhook_not_found', 'Webhook not found');
    return row;
  };

  app.post(
    '/v1/webhook',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Register an endpoint; the signing secret is returned once',
        body: Type.Object({ url: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
        response: { 201: Type.Object({ id: Type.String(), secret: Type.String() }) },
      },
    },
    async (request, reply) => {
      const check = checkWebhookUrl(request.body.url, deps.config.allowLocal);
      if (!check.ok) throw new ValidationError([{ field: 'url', message: check.reason }]);
      const scope = owner(request);
      const existing = await deps.db
        .select({ id: webhooks.id })
        .from(webhooks)
        .where(
          // The limit is per owner: an API key's account-wide endpoints apart from its client IDs'.
          and(ownedBy(scope), scope.clientIdId === null ? isNull(webhooks.clientIdId) : undefined),
        );
      if (existing.length >= MAX_WEBHOOKS_PER_OWNER) {
        throw new ValidationError([
          { field: 'url', message: `at most ${MAX_WEBHOOKS_PER_OWNER} webhooks per client ID` },
        ]);
      }
      const now = deps.clock.now();
      const id = `whk_${ulid(now.getTime())}`;
      const secret = `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
      await deps.db.insert(webhooks).values({
        id,
        accountId: scope.accountId,
        clientIdId: scope.clientIdId,
        url: check.url,
        secretSealed: deps.secretBox.seal(secret, id),
        createdAt: now,
        updatedAt: now,
      });
      return reply.code(201).send({ id, secret });
    },
  );

  app.get(
    '/v1/webhook',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'The caller’s webhooks',
        response: { 200: Type.Array(WebhookSchema) },
      },
    },
    async (request) => {
      const rows = await deps.db
        .select()
        .from(webhooks)
        .where(ownedBy(owner(request)))
        .orderBy(webhooks.createdAt);
      return rows.map(webhookBody);
    },
  );

  app.put(
    '/v1/webhook/:id',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Switch an endpoint on or off',
        params: IdParams,
        body: Type.Object({ active: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: WebhookSchema },
      },
    },
    async (request) => {
      const row = await find(request, request.params.id);
      const [updated] = await deps.db
        .update(webhooks)
        .set({ active: request.body.active, updatedAt: deps.clock.now() })
        .where(eq(webhooks.id, row.id))
        .returning();
      return webhookBody(updated ?? row);
    },
  );

  app.delete(
    '/v1/webhook/:id',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Delete an endpoint for good (its delivery log stays)',
        params: IdParams,
        response: { 200: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) },
      },
    },
    async (request) => {
      const row = await find(request, request.params.id);
      const now = deps.clock.now();
      await deps.db
        .update(webhooks)
        .set({ active: false, deletedAt: now, updatedAt: now })
        .where(eq(webhooks.id, row.id));
      return { id: row.id, deleted: true as const };
    },
  );

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
      const rows = await deps.db
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.webhookId, hook.id),
            before === undefined ? undefined : lt(webhookDeliveries.id, before),
          ),
        )
        .orderBy(desc(webhookDeliveries.id))
        .limit(limit);
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
