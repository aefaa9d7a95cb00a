import { sql } from 'drizzle-orm';
import {
  bigint,
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
import { baseUnits, createdAt, nullableTime } from './columns.ts';
import { securePayments } from './links.ts';

/**
 * What a payer said it did to pay a link (`POST /v2/secure-payments/{token}/intent` and
 * `/multicall-intent`): a transaction it sent itself (`tx`), a Safe transaction its owners are
 * signing (`safe`, tracked until executed, failed or past its deadline), a transaction on
 * another network that bridges the payment to the link's (`bridge`, followed through the
 * routing aggregator until delivered, failed or refunded), or a smart account's multicall
 * receipt (`multicall`, kept for audit only).
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
    kind: text().$type<'tx' | 'safe' | 'bridge' | 'multicall'>().notNull(),
    /**
     * tracking: a Safe transaction still to execute (the link answers 423); bridging: a bridge
     * transfer still under way (the link stays payable); delivered: a transfer the aggregator
     * reports done, its payment not yet detected; the others are recorded as they are.
     */
    status: text()
      .$type<
        'recorded' | 'tracking' | 'bridging' | 'delivered' | 'executed' | 'failed' | 'refunded'
      >()
      .notNull(),
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
    /**
     * The first block the tracker still reads the Safe's execution events from; it moves up
     * behind the chain's head as rounds find nothing (null until its first round).
     */
    scanFromBlock: bigint({ mode: 'bigint' }),
    /** Why tracking ended, when it failed. */
    failureReason: text(),
    /** A bridge's: the transaction that delivered (or refunded) the payment, per the aggregator. */
    receivingTxHash: text(),
    /** A bridge's: a transfer the aggregator has not seen done by then has failed. */
    bridgeDeadline: nullableTime(),
    /** A bridge's: when the aggregator reported it done. */
    deliveredAt: nullableTime(),
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
    index('payment_intents_bridging')
      .on(t.status)
      .where(sql`${t.status} in ('bridging', 'delivered')`),
  ],
);

/**
 * The Safe transactions `/pay` answered (`isSafe=true`), by `safeTxHash`: the tracker learns
 * from them which Safe signs a tracked hash, and at which nonce, when the intent names no
 * `payerAddress` (and the nonce in any case: an intent carries none). Kept as long as the link.
 */
export const safeTransactions = pgTable(
  'safe_transactions',
  {
    safeTxHash: text().primaryKey(),
    securePaymentId: uuid()
      .notNull()
      .references(() => securePayments.id),
    network: text().notNull(),
    safeAddress: text().notNull(),
    nonce: baseUnits().notNull(),
    /**
     * The whole `safeTransaction` `/pay` answered: what the link's 423 hands the owners still
     * to sign it. Null on rows older than the column.
     */
    transaction: jsonb().$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index().on(t.securePaymentId)],
);
