import { sql } from 'drizzle-orm';
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
import { uuidV7 } from '../../base/uuid-v7.ts';
import { createdAt, nullableTime } from './columns.ts';
import { securePayments } from './links.ts';

/**
 * What a payer said it did to pay a link (`POST /v2/secure-payments/{token}/intent` and
 * `/multicall-intent`): a transaction it sent itself (`tx`), a Safe transaction its owners are
 * signing (`safe`, tracked until executed, failed or past its deadline), or a smart account's
 * multicall receipt (`multicall`, kept for audit only).
 */
export const paymentIntents = pgTable(
  'payment_intents',
  {
    id: uuid()
      .primaryKey()
      .defaultRandom()
      .$defaultFn(() => uuidV7()),
    securePaymentId: uuid()
      .notNull()
      .references(() => securePayments.id),
    kind: text().$type<'tx' | 'safe' | 'multicall'>().notNull(),
    /** tracking: a Safe transaction still to execute; the others are recorded as they are. */
    status: text().$type<'recorded' | 'tracking' | 'executed' | 'failed'>().notNull(),
    network: text().notNull(),
    txHash: text(),
    safeTxHash: text(),
    /** A Safe's: past it, tracking stops and the payment fails. */
    safePaymentDeadline: timestamp({ withTimezone: true }),
    payerAddress: text(),
    payerEoaAddress: text(),
    smartAccountAddress: text(),
    userOpHash: text(),
    /** How many legs a multicall receipt names. */
    legCount: integer(),
    /** The rest of the body as sent, for audit (route, bridge, source token and amount). */
    details: jsonb().$type<Record<string, unknown>>().notNull(),
    /** Why tracking ended, when it failed. */
    failureReason: text(),
    createdAt: createdAt(),
    endedAt: nullableTime(),
  },
  (t) => [
    index().on(t.securePaymentId),
    // At most one Safe transaction tracked per link at a time.
    uniqueIndex('payment_intents_tracking')
      .on(t.securePaymentId)
      .where(sql`${t.status} = 'tracking'`),
    index('payment_intents_tracked').on(t.status).where(sql`${t.status} = 'tracking'`),
  ],
);
