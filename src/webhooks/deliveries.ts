import { and, desc, eq, inArray, isNull, lt, lte, or } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { webhookAttempts, webhookDeliveries, webhooks } from '../db/schema.ts';
import type { CallerScope } from '../http/principal.ts';
import { isTestEventType, sampleEvent, TEST_EVENT_TYPES } from './events.ts';
import { enqueue } from './outbox.ts';
import { ownedBy, type WebhookRow } from './ownership.ts';

/** The delivery side of `/v1/webhook`: a test event, an endpoint's delivery log, redelivery. */

const DEFAULT_PAGE = 20;

export interface DeliveryDeps {
  readonly db: Database;
  readonly clock: Clock;
  /** Called once deliveries are due now, so the dispatcher need not wait for its next poll. */
  readonly wake?: () => void;
}

/**
 * A sample `eventType` to every active endpoint of `scope`, flagged as a test; `clientId` (the
 * public id of the scope's client ID, when it has one) fills the sample's `clientId`.
 */
export async function sendTestEvent(
  deps: DeliveryDeps,
  scope: CallerScope,
  eventType: string,
  clientId?: string,
): Promise<{ sent: number; deliveryIds: string[] }> {
  if (!isTestEventType(eventType)) {
    throw new ValidationError([
      { field: 'eventType', message: `must be one of ${TEST_EVENT_TYPES.join(', ')}` },
    ]);
  }
  const now = deps.clock.now();
  const rows = await deps.db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(and(ownedBy(scope), eq(webhooks.active, true)));
  const deliveryIds = await enqueue(
    deps.db,
    now,
    rows.map((r) => r.id),
    [{ event: eventType, payload: sampleEvent(eventType, now, clientId) }],
    {
      test: true,
    },
  );
  deps.wake?.();
  return { sent: deliveryIds.length, deliveryIds };
}

/** A page of `hook`'s delivery log, newest first, older than the delivery `before`. */
export async function deliveryLog(
  db: Database,
  hook: WebhookRow,
  query: { readonly limit?: number | undefined; readonly before?: string | undefined },
) {
  const limit = query.limit ?? DEFAULT_PAGE;
  const { before } = query;
  if (before !== undefined) {
    // A cursor from another log (or none at all) would page through a meaningless range.
    const [cursor] = await db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, before), eq(webhookDeliveries.webhookId, hook.id)));
    if (!cursor) {
      throw new ValidationError([
        { field: 'before', message: 'is not a delivery of this webhook' },
      ]);
    }
  }
  const rows = await deliveryPageQuery(db, hook.id, before, limit);
  const attempts =
    rows.length === 0
      ? []
      : await db
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
          response: a.responseExcerpt,
          durationMs: a.durationMs,
          at: a.at.toISOString(),
        })),
    })),
  };
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

/** `hook`'s delivery `deliveryId` due again now (same id and body). */
export async function redeliver(
  deps: DeliveryDeps,
  hook: WebhookRow,
  deliveryId: string,
): Promise<void> {
  const now = deps.clock.now();
  const ofHook = and(
    eq(webhookDeliveries.id, deliveryId),
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
}
