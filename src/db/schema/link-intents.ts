import { index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, nullableTime } from './columns.ts';
import { clientIds, orchestrators, type StoredKytPlan } from './tenants.ts';

/**
 * An orchestrator's invitation to a merchant (`POST /v2/orchestrators/client-id-link-intents`):
 * whoever opens its URL, signs in and completes it gets a new client ID linked to the
 * orchestrator. Single use (`usedAt` is set once, by a conditional update) and valid until
 * `expiresAt`. Its access token is kept only as a digest beside a short lookup prefix, as keys are.
 */
export const clientIdLinkIntents = pgTable(
  'client_id_link_intents',
  {
    id: uuid().primaryKey().defaultRandom(),
    orchestratorId: uuid()
      .notNull()
      .references(() => orchestrators.id),
    prefix: text().notNull(),
    keyHash: text().notNull(),
    clientIdName: text().notNull(),
    /** Normalised origins, copied to the client ID on completion. */
    allowedDomains: jsonb().$type<string[]>().notNull().default([]),
    externalId: text(),
    kytPlan: jsonb().$type<StoredKytPlan>(),
    expiresAt: nullableTime().notNull(),
    usedAt: nullableTime(),
    /** The client ID its completion created. */
    clientIdId: uuid().references(() => clientIds.id),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [index().on(t.prefix), uniqueIndex().on(t.keyHash)],
);

export type LinkIntentRow = typeof clientIdLinkIntents.$inferSelect;
