import { and, eq, isNull } from 'drizzle-orm';
import { ulid } from 'ulid';
import type { Database } from '../db/client.ts';
import { webhookDeliveries, webhooks } from '../db/schema.ts';

/**
 * Writes deliveries into the outbox. Callers pass the transaction that records the change the
 * event reports, so the event exists if and only if the change does.
 */

export interface Audience {
  readonly accountId: string;
  /** The client ID the request was created with: its webhooks hear of it. Null: every webhook of the account. */
  readonly clientIdId: string | null;
}

export async function targetWebhooks(db: Database, audience: Audience): Promise<string[]> {
  const rows = await db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(
      and(
        eq(webhooks.accountId, audience.accountId),
        eq(webhooks.active, true),
        isNull(webhooks.deletedAt),
        audience.clientIdId === null ? undefined : eq(webhooks.clientIdId, audience.clientIdId),
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
