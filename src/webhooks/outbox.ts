import { and, eq, isNull, or } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { webhookDeliveries, webhooks } from '../db/schema.ts';
import { ulid } from '../ulid.ts';

/**
 * Writes deliveries into the outbox. Callers pass the transaction that records the change the
 * event reports, so the event exists if and only if the change does.
 */

export interface Audience {
  readonly accountId: string;
  /** The client ID the request was created with, if any. */
  readonly clientIdId: string | null;
}

/**
 * Who hears of a payment (api-facts §1.1): the account's platform-wide endpoints (registered
 * with an API key or a session) hear of every payment of the account; an endpoint registered
 * with a client ID hears only of the requests made with that client ID. A client ID may be a
 * browser's, and so public: it must never be a way to listen to the rest of the account.
 */
export async function targetWebhooks(db: Database, audience: Audience): Promise<string[]> {
  const rows = await db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(
      and(
        eq(webhooks.accountId, audience.accountId),
        eq(webhooks.active, true),
        isNull(webhooks.deletedAt),
        audience.clientIdId === null
          ? isNull(webhooks.clientIdId)
          : or(isNull(webhooks.clientIdId), eq(webhooks.clientIdId, audience.clientIdId)),
      ),
    );
  return rows.map((row) => row.id);
}

/** One delivery per (event, webhook); the body is fixed now, `event` first. */
export async function enqueue(
  db: Database,
  now: Date,
  webhookIds: readonly string[],
  events: readonly { readonly event: string; readonly payload: Record<string, unknown> }[],
  options: { readonly test?: boolean; readonly paymentId?: string } = {},
): Promise<string[]> {
  const rows = webhookIds.flatMap((webhookId) =>
    events.map(({ event, payload }) => ({
      id: ulid(now.getTime()),
      webhookId,
      event,
      body: JSON.stringify({ event, ...payload }),
      test: options.test ?? false,
      paymentId: options.paymentId ?? null,
      nextAttemptAt: now,
      // The retry window runs from here, on the caller's clock, not the database's.
      createdAt: now,
    })),
  );
  if (rows.length === 0) return [];
  await db.insert(webhookDeliveries).values(rows);
  return rows.map((row) => row.id);
}
