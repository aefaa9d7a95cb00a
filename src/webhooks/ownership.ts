import { and, eq, isNull, type SQL } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { clientIds, webhooks } from '../db/schema.ts';
import { type CallerScope, scopeOf } from '../http/principal.ts';

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

/**
 * The scope of a call that may name a client ID in its body (`POST /v1/webhook`,
 * `POST /v1/webhook/test`, Auth API 0.14.0). A session or an API key speaks for the account:
 * naming one of its client IDs narrows the call to that client ID (another account's, or an
 * unknown one, is `client_id_not_found`, so nothing tells whether it exists; a revoked one is
 * refused); naming none leaves the call account-wide. A client ID credential is its own scope:
 * naming another client ID is refused.
 */
export async function scopeNaming(
  db: Database,
  request: FastifyRequest,
  clientId: string | undefined,
): Promise<CallerScope> {
  const scope = owner(request);
  if (clientId === undefined) return scope;
  const principal = request.principal;
  if (principal?.kind === 'clientId') {
    if (principal.clientId.clientId !== clientId) {
      throw new AppError(
        'client_id_mismatch',
        'clientId must be the client ID this call is made with (x-client-id)',
      );
    }
    return scope;
  }
  const [row] = await db
    .select({ id: clientIds.id, status: clientIds.status })
    .from(clientIds)
    .where(and(eq(clientIds.clientId, clientId), eq(clientIds.accountId, scope.accountId)));
  if (!row) throw new AppError('client_id_not_found', 'Client ID not found');
  if (row.status === 'revoked')
    throw new AppError('client_id_revoked', 'Client ID has been revoked');
  return { accountId: scope.accountId, clientIdId: row.id };
}

/** The optional `clientId` of the bodies `scopeNaming` reads. */
export const ClientIdField = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 64,
    description:
      'With a session or an API key: scope the call to this client ID of the account. With x-client-id: that same client ID (or leave it out).',
  }),
);

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
