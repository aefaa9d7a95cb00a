import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { uuidV7 } from '../../base/uuid-v7.ts';
import { addressKey, baseUnits, createdAt } from './columns.ts';
import { requests } from './links.ts';
import { payers, paymentDetails } from './payers.ts';
import { accounts } from './tenants.ts';

/**
 * Where an off-ramp transfer stands, as the provider reports it (api-facts §1.2's `subStatus`):
 * `awaiting_funds` until the provider reports anything, then the normal progression
 * `initiated → pending_internal_assessment → ongoing_checks → sending_fiat → fiat_sent`, or an
 * end in `failed` or `bounced`.
 */
export type OfframpStatus =
  | 'awaiting_funds'
  | 'initiated'
  | 'pending_internal_assessment'
  | 'ongoing_checks'
  | 'sending_fiat'
  | 'retry_required'
  | 'fiat_sent'
  | 'failed'
  | 'bounced';

/**
 * Crypto-to-fiat transfers (src/offramp/): created at the off-ramp provider by `/pay`, one per
 * request, payment details and `sequence` (a new one once the last was paid or ended). The payer pays `depositAddress` with
 * the request's reference; detection counts that payment for this request only, and the
 * provider's signed callbacks move `status` forward (never back: `rank` orders the states).
 */
export const offrampTransfers = pgTable(
  'offramp_transfers',
  {
    id: uuid()
      .primaryKey()
      .defaultRandom()
      .$defaultFn(() => uuidV7()),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    requestRowId: uuid()
      .notNull()
      .references(() => requests.id),
    payerId: uuid()
      .notNull()
      .references(() => payers.id),
    paymentDetailsId: uuid()
      .notNull()
      .references(() => paymentDetails.id),
    /**
     * Which transfer of the request and payment details this is, from 1: a new one is made when
     * the last has been paid or ended, or is for another amount (offramp/transfers.ts).
     */
    sequence: integer().notNull().default(1),
    /** The provider's transfer id: the events' `offrampId`. */
    providerTransferId: text().notNull(),
    network: text().notNull(),
    /** Checksummed: the provider's address the payer pays, for this transfer only. */
    depositAddress: text().notNull(),
    depositKey: addressKey('deposit_address').notNull(),
    /** Base units of the request's payment currency the provider was told to expect. */
    amount: baseUnits().notNull(),
    status: text().$type<OfframpStatus>().notNull().default('awaiting_funds'),
    /** The order of `status` (offramp/states.ts): a report of a lower rank changes nothing. */
    rank: integer().notNull().default(0),
    /** The payment to the deposit address, once detection recorded it. */
    txHash: text(),
    createdAt: createdAt(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex().on(t.requestRowId, t.paymentDetailsId, t.sequence),
    uniqueIndex().on(t.providerTransferId),
    index().on(t.network, t.depositKey),
  ],
);
