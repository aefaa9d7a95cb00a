import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, nullableTime } from './columns.ts';
import { accounts, clientIds, orchestrators } from './tenants.ts';

/** Webhook endpoints, their outbox of deliveries and the attempts at each. */

/**
 * An endpoint; the signing secret is sealed with SECRET_KEY. Owned by a merchant's account (and
 * maybe one of its client IDs) or by an orchestrator (`/v2/orchestrators/webhooks`), never
 * both: one table, so the outbox, the dispatcher and the delivery log serve both alike, and an
 * account's queries (`accountId = …`) can never reach an orchestrator's endpoint.
 */
export const webhooks = pgTable(
  'webhooks',
  {
    id: text().primaryKey(),
    accountId: uuid().references(() => accounts.id),
    clientIdId: uuid().references(() => clientIds.id),
    orchestratorId: uuid().references(() => orchestrators.id),
    url: text().notNull(),
    secretSealed: text().notNull(),
    active: boolean().notNull().default(true),
    /**
     * The endpoint's retry policy past the reference's three retries (1 s, 5 s, 15 s): the first
     * delay of the doubling back-off, its cap, and how long after the event retries go on.
     * Null: the deployment's (`WEBHOOK_RETRY_*`).
     */
    retryBackoffSeconds: integer(),
    retryMaxDelaySeconds: integer(),
    retryForSeconds: integer(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    deletedAt: nullableTime(),
  },
  (t) => [
    index().on(t.accountId),
    index().on(t.clientIdId),
    // An orchestrator registers a URL once (api-facts §11.6), inactive endpoints included.
    uniqueIndex('webhooks_orchestrator_url')
      .on(t.orchestratorId, t.url)
      .where(sql`${t.orchestratorId} is not null`),
    check(
      'webhooks_one_owner',
      sql`(${t.accountId} is null) <> (${t.orchestratorId} is null) and (${t.orchestratorId} is null or ${t.clientIdId} is null)`,
    ),
  ],
);

export const deliveryStatus = pgEnum('webhook_delivery_status', ['pending', 'delivered', 'failed']);

/**
 * The outbox: one row per (event, endpoint), written in the same transaction as the change
 * that caused it. `body` is the exact JSON sent on every attempt, so the signature and the
 * receiver's deduplication key (the row id) never change. Its fillfactor is 50 (migration
 * 0023, which drizzle does not model): a claim then rewrites its row on the same page.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    /** ULID; sent as the delivery id header. */
    id: text().primaryKey(),
    webhookId: text()
      .notNull()
      .references(() => webhooks.id),
    event: text().notNull(),
    body: text().notNull(),
    test: boolean().notNull().default(false),
    /** The payment the event reports, if any: a reorg that drops it cancels what is unsent. */
    paymentId: uuid(),
    status: deliveryStatus().notNull().default('pending'),
    /** Attempts made so far (the next one is sent with this as its retry count). */
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull(),
    /** A dispatcher's claim: until then no other dispatcher takes the row. */
    lockedUntil: nullableTime(),
    lastStatusCode: integer(),
    lastError: text(),
    deliveredAt: nullableTime(),
    createdAt: createdAt(),
  },
  (t) => [
    // The queue: only pending rows, which claims take oldest first. A delivered or failed row
    // leaves it, and its record writes no entry here.
    index('webhook_deliveries_pending_index')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    // The delivery log pages newest first by id (a ULID, so in creation order).
    index().on(t.webhookId, t.id),
    // Read only to cancel what a reorganisation left unsent, so it holds only the queue: a
    // record (which moves a row out of it) writes no entry here.
    index('webhook_deliveries_pending_payment_index')
      .on(t.paymentId)
      .where(sql`${t.status} = 'pending'`),
    // A payment's deliveries, whatever their state: a journey (src/journeys/hops.ts) shows the
    // webhooks a payment sent. Its entry is written at insert; paymentId never changes, so a
    // claim or a record that rewrites its row on the same page (fillfactor 50) adds none.
    index('webhook_deliveries_payment_index')
      .on(t.paymentId)
      .where(sql`${t.paymentId} is not null`),
  ],
);

/**
 * Every attempt of every delivery: the delivery log, keyed by delivery and attempt number (a
 * claim numbers each attempt once). Written only with the outcome of a claimed delivery, in
 * the dispatcher's one statement, so it carries no foreign key: one index, no trigger, per row.
 */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    deliveryId: text().notNull(),
    attempt: integer().notNull(),
    statusCode: integer(),
    error: text(),
    /** The start of the receiver's answer (at most 500 characters), for the delivery log. */
    responseExcerpt: text(),
    durationMs: integer().notNull(),
    at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.attempt] })],
);
