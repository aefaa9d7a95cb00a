import {
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt } from './columns.ts';
import { requests } from './links.ts';
import { accounts } from './tenants.ts';

/**
 * Journeys (`/v2/journey`): the path one request's money takes through processors outside
 * payreq (an exchange, an off-ramp), step by step as each reports it. Only what processors
 * report is stored here; payreq's own hops (the request, intents, payments, fee legs, webhooks)
 * are read from their own tables when a journey is read (src/journeys/hops.ts).
 */
export const journeys = pgTable(
  'journeys',
  {
    /** `jrn_` and a ULID. */
    id: text().primaryKey(),
    /** The request's account, copied so that every read is scoped without a join. */
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    requestRowId: uuid()
      .notNull()
      .references(() => requests.id),
    createdAt: createdAt(),
  },
  // A request's journeys, newest last: a step posted by request id goes to the newest.
  (t) => [index().on(t.requestRowId, t.createdAt)],
);

/** A processor's step of a journey, as it reported it; `stepIndex` counts from 0 in order posted. */
export const journeySteps = pgTable(
  'journey_steps',
  {
    /** `jst_` and a ULID. */
    id: text().primaryKey(),
    journeyId: text()
      .notNull()
      .references(() => journeys.id),
    stepIndex: integer().notNull(),
    /** The API key that posted it. */
    processorId: text().notNull(),
    status: text().notNull(),
    /** A decimal string as the processor wrote it, in `currency` (its own units). */
    amount: text().notNull(),
    currency: text(),
    txReference: text(),
    processedAt: timestamp({ withTimezone: true }).notNull(),
    /** Any JSON the processor attached (bounded in size); null when none. */
    rawPayload: jsonb().$type<unknown>(),
    nextProcessorId: text(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex().on(t.journeyId, t.stepIndex)],
);
