import { and, eq, isNull, type SQL } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { webhooks } from '../db/schema.ts';
import { scopeOf } from '../http/principal.ts';

/** What the `/v1/webhook` routes share: who may call them, and which webhooks a caller owns. */

export const AUTH = ['clientId', 'apiKey', 'session'] as const;
export const TAGS = ['V1/Webhooks'];

export type WebhookRow = typeof webhooks.$inferSelect;

/** A client ID owns the webhooks it registers; an API key or a session sees its account's. */
export const owner = scopeOf;

export function ownedBy(scope: { accountId: string; clientIdId: string | null }): SQL | undefined {
  return and(
    eq(webhooks.accountId, scope.accountId),
    isNull(webhooks.deletedAt),
    scope.clientIdId === null ? undefined : eq(webhooks.clientIdId, scope.clientIdId),
  );
}

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** The caller’s webhook `id`, not deleted; `webhook_not_found` otherwise. */
export async function findWebhook(
  db: Database,
  request: FastifyRequest,
  id: string,
): Promise<WebhookRow> {
  const [row] = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, id), ownedBy(owner(request))));
  if (!row) throw new AppError('webhook_not_found', 'Webhook not found');
  return row;
}
