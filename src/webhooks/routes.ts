import { randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Clock } from '../base/clock.ts';
import { ValidationError } from '../base/errors.ts';
import type { SecretBox } from '../base/secret-box.ts';
import { ulid } from '../base/ulid.ts';
import type { WebhookConfig } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import { webhooks } from '../db/schema.ts';
import type { App } from '../http/types.ts';
import { webhookDeliveryRoutes } from './delivery-routes.ts';
import { AUTH, findWebhook, IdParams, ownedBy, owner, TAGS, type WebhookRow } from './ownership.ts';
import { checkWebhookUrl } from './url-policy.ts';

const SECRET_PREFIX = 'whsec_';
const MAX_WEBHOOKS_PER_OWNER = 20;

function webhookBody(row: WebhookRow) {
  return { id: row.id, url: row.url, active: row.active, createdAt: row.createdAt.toISOString() };
}

const WebhookSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  active: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});

/**
 * Webhook endpoints on the auth API (`/v1/webhook`). The signing secret is shown once, at
 * creation, and stored sealed with SECRET_KEY; losing it means delete and register again.
 * Registration and management are here; the test event, the delivery log and redelivery are
 * registered after them by `webhookDeliveryRoutes`.
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
  const find = (request: FastifyRequest, id: string) => findWebhook(deps.db, request, id);

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

  webhookDeliveryRoutes(app, deps);
}
