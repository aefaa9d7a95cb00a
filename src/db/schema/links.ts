import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { FeePlan } from '../../base/fee-plan.ts';
import type { Frequency } from '../../base/recurrence.ts';
import { uuidV7 } from '../../base/uuid-v7.ts';
import { addressKey, baseUnits, createdAt, nullableTime } from './columns.ts';
import type { LinkScreening } from './screening.ts';
import { accounts } from './tenants.ts';

/** Secure payment links, their multicall children, payment requests and request schedules. */

export const securePaymentStatus = pgEnum('secure_payment_status', [
  'pending',
  'completed',
  'expired',
  'invalidated',
  'compliance_failed',
]);

/** A hosted link; its requests hang off it in `position` order. */
export const securePayments = pgTable(
  'secure_payments',
  {
    id: uuid()
      .primaryKey()
      .defaultRandom()
      // Written by us in time order (uuid-v7.ts): inserts append to the key's B-tree.
      .$defaultFn(() => uuidV7()),
    /** ULID, the public handle in URLs. */
    token: text().notNull(),
    // No foreign keys on the link write path (this table and `requests`): see `requests`.
    accountId: uuid().notNull(),
    clientIdId: uuid(),
    payout: boolean().notNull().default(false),
    /** A payout's payer: the only wallet the link may be paid from. Null on incoming links. */
    creatorWallet: text(),
    /** A multicall parent: its requests are its children's (`multicall_children`), not its own. */
    multicall: boolean().notNull().default(false),
    /** A multicall's requested execution kind; null when the caller left it to pay time. */
    executionKind: text().$type<'evm_same_chain' | 'evm_cross_chain' | 'tron_batch'>(),
    status: securePaymentStatus().notNull().default('pending'),
    network: text().notNull(),
    reference: text(),
    payerIdentifier: text(),
    redirectUrl: text(),
    redirectLabel: text(),
    /**
     * The fee plan captured when the link was made (later fee-config edits change new links
     * only); null for a link without one (not a USD stablecoin, or made before fee plans).
     */
    feePlan: jsonb().$type<FeePlan>(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    completedAt: nullableTime(),
    /**
     * While a payer's Safe transaction for the link is tracked (`payment_intents`), until when:
     * the link answers 423 until then or until tracking ends (which clears it). Null: none.
     */
    trackingUntil: nullableTime(),
    /**
     * Who may pay and whether payers are screened, resolved when the link was made
     * (src/screening/); null: anyone, unscreened.
     */
    screening: jsonb().$type<LinkScreening>(),
    /**
     * The `Idempotency-Key` the link was made under, with its caller's scope and the request's
     * hash (src/idempotency/keys.ts): kept on the link itself rather than as a record of its
     * own, and its 201 rendered again from the link to a retry (secure-payments/link-keys.ts).
     * Cleared 24 hours on, when the key may be used again. Null: made without one.
     */
    idempotencyScope: text(),
    idempotencyKey: text(),
    idempotencyHash: text(),
    /** When the payer of the completed link was screened again (null: not yet, or no need). */
    completionScreenedAt: nullableTime(),
    /** While no provider answers the completion screening: not tried again before this. */
    completionRetryAt: nullableTime(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex().on(t.token),
    // The list's order (newest first, id breaking ties), alone and narrowed to payouts or not.
    index().on(t.accountId, t.createdAt, t.id),
    index().on(t.accountId, t.payout, t.createdAt, t.id),
    // The dashboard's links awaiting payment: only pending links, by when they expire.
    index('secure_payments_pending_index')
      .on(t.accountId, t.expiresAt)
      .where(sql`${t.status} = 'pending'`),
    // One link per caller and key: a retry's write finds it (ON CONFLICT), the janitor the old.
    uniqueIndex('secure_payments_idempotency_key_index')
      .on(t.idempotencyScope, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
  ],
);

/**
 * The payout links a multicall parent pays, in `position` order. A child stays a link of its
 * own (payable alone too); a parent only groups them.
 */
export const multicallChildren = pgTable(
  'multicall_children',
  {
    parentId: uuid()
      .notNull()
      .references(() => securePayments.id),
    childId: uuid()
      .notNull()
      .references(() => securePayments.id),
    position: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.parentId, t.position] }), index().on(t.childId)],
);

/** A payment request: who is owed how much of what, and the reference that finds its payments. */
export const requests = pgTable(
  'requests',
  {
    id: uuid()
      .primaryKey()
      .defaultRandom()
      // Written by us in time order (uuid-v7.ts): inserts append to the key's B-tree.
      .$defaultFn(() => uuidV7()),
    /** `01` + 64 hex digits. */
    requestId: text().notNull(),
    // No foreign keys here nor on `secure_payments`: a link and its requests are written by one
    // statement that takes every id from a row it reads or writes in the same snapshot (the
    // caller's account, its active destinations, the link it inserts), and accounts, client
    // IDs, destinations and links are never deleted. The checks cost a fifth of the write's
    // database time (docs/architecture.md, "Writing a link").
    accountId: uuid().notNull(),
    clientIdId: uuid(),
    securePaymentId: uuid(),
    position: integer(),
    network: text().notNull(),
    invoiceCurrency: text().notNull(),
    paymentCurrency: text().notNull(),
    /** In base units of the invoice currency (the payment currency's, unless it converts). */
    expectedAmount: baseUnits().notNull(),
    payee: text().notNull(),
    payer: text(),
    destinationId: uuid(),
    reference: text(),
    customerInfo: jsonb().$type<Record<string, unknown>>(),
    /** The browser origin a client ID made the request from (checked against its domains). */
    origin: text(),
    salt: text().notNull(),
    /** 16 hex digits (8 bytes), no 0x. */
    paymentReference: text().notNull(),
    /**
     * keccak256 of the 8 reference bytes: topic 1 of the payment events, how logs find us.
     * Null only on rows older than the column, until `backfillReferenceTopics` runs at start.
     */
    referenceTopic: text(),
    status: text().$type<'pending' | 'partially_paid' | 'paid'>().notNull().default('pending'),
    totalAmountPaid: baseUnits().notNull().default(sql`0`),
    /**
     * The payee-borne fees of the link's fee plan, in base units: they come out of what the
     * payee's leg carries, so the request is paid once `totalAmountPaid` reaches
     * `expectedAmount` less them (their own legs are `fee_legs`). 0 without such fees.
     */
    payeeBorneFees: baseUnits().notNull().default(sql`0`),
    paidAt: nullableTime(),
    createdAt: createdAt(),
    /**
     * Occurrences of a recurring request: the original's `requestId` and payment reference (16
     * hex digits, no 0x). Null on originals and on requests that recur not at all.
     */
    originalRequestId: text(),
    originalRequestPaymentReference: text(),
    /**
     * The index of an occurrence its schedule generated (the original is 0 and has a
     * `request_schedules` row); null on requests a client made itself. Unique per original, so
     * an occurrence is created once however many generators race.
     */
    occurrence: integer(),
    payeeKey: addressKey('payee').notNull(),
    /**
     * Made with `isCryptoToFiatAvailable`: it may be paid to a payer's bank through the off-ramp
     * (src/offramp/), and its payee may be the zero address (none given).
     */
    cryptoToFiat: boolean().notNull().default(false),
    /**
     * Money the account pays out (`POST /v2/payouts` and its batch, payout links, recurring
     * payouts), not money it is paid: which side of the dashboard's totals its payments count on.
     */
    payout: boolean().notNull().default(false),
    /**
     * Where its latest off-ramp transfer stands (the provider's `subStatus`), null before one is
     * funded or reported; written by src/offramp/ with the transfer.
     */
    offrampStatus: text(),
  },
  (t) => [
    uniqueIndex().on(t.requestId),
    // keccak256 of the reference: unique per network as the reference is, one index for both.
    uniqueIndex().on(t.network, t.referenceTopic),
    // The rows the start-up backfill (src/db/migrate.ts) looks for: none once it has run, so
    // each start reads an empty index, not the table; new rows never enter it.
    index('requests_missing_reference_topic_index')
      .on(t.id)
      .where(sql`${t.referenceTopic} is null`),
    index().on(t.securePaymentId),
    // Indexes on columns most requests leave null are partial: a request written without
    // them (a link's, made with an API key) updates three indexes fewer.
    uniqueIndex()
      .on(t.originalRequestId, t.occurrence)
      .where(sql`${t.originalRequestId} is not null`),
    // GET /v2/request: newest first (id breaking ties) for an account, a payee wallet of it, or
    // a client ID (which belongs to one account).
    index().on(t.accountId, t.createdAt, t.id),
    index().on(t.accountId, t.payeeKey, t.createdAt, t.id),
    index().on(t.clientIdId, t.createdAt, t.id).where(sql`${t.clientIdId} is not null`),
    // GET /v2/payments?reference= (a merchant reference names few requests).
    index().on(t.accountId, t.reference).where(sql`${t.reference} is not null`),
  ],
);

/**
 * The schedule of a recurring request (`POST /v2/request` with `recurrence`), one row per
 * original. The generator creates occurrence `nextOccurrence` once `nextAt` (its calendar date,
 * src/base/recurrence.ts) has passed, and advances both in the same transaction.
 */
export const requestSchedules = pgTable(
  'request_schedules',
  {
    /** The original request (occurrence 0). */
    requestRowId: uuid()
      .primaryKey()
      .references(() => requests.id),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    startDate: timestamp({ withTimezone: true }).notNull(),
    frequency: text().$type<Frequency>().notNull(),
    stopped: boolean().notNull().default(false),
    nextOccurrence: integer().notNull().default(1),
    nextAt: timestamp({ withTimezone: true }).notNull(),
    updatedAt: createdAt(),
  },
  (t) => [index().on(t.nextAt).where(sql`${t.stopped} = false`)],
);
