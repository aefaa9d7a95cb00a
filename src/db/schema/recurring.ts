import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { baseUnits, createdAt, nullableTime } from './columns.ts';
import { requests } from './links.ts';
import { accounts, clientIds } from './tenants.ts';

/** Recurring payouts and the executions that trigger them on chain. */

export const recurringPayoutStatus = pgEnum('recurring_payout_status', [
  /** Created; waits for the payer's signed permit. */
  'pending',
  'active',
  /** An execution failed; waits for `unpause`. */
  'paused',
  'completed',
  'cancelled',
]);

/**
 * A recurring payout: the payer's `SchedulePermit` (contracts.md §4) exactly as it was offered
 * for signature (every field the contract hashes, so the executor rebuilds the same digest),
 * the signature once submitted, and where the schedule stands. `processedPayments` counts the
 * executions that succeeded; index `processedPayments + 1` (the contract's 1-based index) is
 * the next one. `nextPaymentAt` is that index's calendar date while the schedule is `active`,
 * null otherwise: the executor's due query reads only it.
 */
export const recurringPayouts = pgTable(
  'recurring_payouts',
  {
    /** The public id (`/v2/payouts/recurring/{id}`). */
    id: uuid().primaryKey().defaultRandom(),
    /**
     * The payer's capability on the hosted pay page (`PAY_URL/?recurring=<payToken>`): 64 hex
     * digits, 256 random bits, made by the app (`newPayToken`). The default only fills the rows
     * written before the column existed (gen_random_uuid draws from the server's CSPRNG).
     */
    payToken: text()
      .notNull()
      .default(sql`replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')`),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    clientIdId: uuid().references(() => clientIds.id),
    /** The browser origin a client ID created it from; each index's request inherits it. */
    origin: text(),
    network: text().notNull(),
    chainId: integer().notNull(),
    /** The currency id the schedule pays in (invoice and payment currency alike). */
    currency: text().notNull(),
    /** The proxy the permit names (`verifyingContract`), fixed at creation. */
    proxy: text().notNull(),
    /** Permit values: `subscriber`. */
    payer: text().notNull(),
    /** Permit values: `token`. */
    tokenAddress: text().notNull(),
    /** Permit values: `recipient`. */
    payee: text().notNull(),
    /** Permit values: `feeAddress` (the zero address when there is no fee). */
    feeAddress: text().notNull(),
    /** Permit values: `amount`, `feeAmount`, `relayerFee`, base units, per payment. */
    amount: baseUnits().notNull(),
    feeAmount: baseUnits().notNull(),
    relayerFee: baseUnits().notNull(),
    periodSeconds: integer().notNull(),
    /** Unix seconds: `startDate` without its fraction. */
    firstPayment: bigint({ mode: 'number' }).notNull(),
    totalPayments: integer().notNull(),
    nonce: baseUnits().notNull(),
    /** Unix seconds. */
    deadline: baseUnits().notNull(),
    strictOrder: boolean().notNull(),
    /** The calendar (src/base/recurrence.ts): occurrence n falls on `startDate` + n periods. */
    frequency: text().$type<'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY'>().notNull(),
    startDate: timestamp({ withTimezone: true }).notNull(),
    /** The payer's EIP-712 signature over the permit, checked before it was stored. */
    signature: text(),
    status: recurringPayoutStatus().notNull().default('pending'),
    processedPayments: integer().notNull().default(0),
    /** Executions that failed over the schedule's life. */
    failureCount: integer().notNull().default(0),
    /** Why the last failure paused it; cleared by `unpause`. */
    failureReason: text(),
    lastPaymentAt: nullableTime(),
    nextPaymentAt: nullableTime(),
    reference: text(),
    customerInfo: jsonb().$type<Record<string, unknown>>(),
    activatedAt: nullableTime(),
    cancelledAt: nullableTime(),
    completedAt: nullableTime(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [
    uniqueIndex().on(t.payToken),
    index().on(t.accountId, t.createdAt),
    index().on(t.status, t.nextPaymentAt),
    index().on(t.network, t.payer, t.tokenAddress),
  ],
);

export const recurringExecutionState = pgEnum('recurring_execution_state', [
  /** Its request exists; nobody has claimed it yet. */
  'pending',
  /** An executor holds it until `claimedUntil` and has not sent a transaction yet. */
  'claimed',
  /** Its transaction (`txHash`) was signed and is being sent or mined. */
  'sent',
  'succeeded',
  /** The attempt failed; the schedule paused. `unpause` makes it claimable again. */
  'failed',
]);

/**
 * One execution of a recurring payout per index: the request it pays (each index has its own
 * request and payment reference) and what happened to it. Unique by (payout, index), so an
 * index is claimed once across processes; a claim is a lease (`claimToken`, `claimedUntil`),
 * and an execution whose executor died is claimed again after the lease, with the hash it
 * recorded, so the next executor looks for that transaction before sending another.
 */
export const recurringExecutions = pgTable(
  'recurring_executions',
  {
    id: uuid().primaryKey().defaultRandom(),
    recurringPayoutId: uuid()
      .notNull()
      .references(() => recurringPayouts.id),
    /** 1-based, as the contract counts. */
    paymentIndex: integer().notNull(),
    requestRowId: uuid()
      .notNull()
      .references(() => requests.id),
    /** This index's calendar date. */
    dueAt: timestamp({ withTimezone: true }).notNull(),
    state: recurringExecutionState().notNull().default('pending'),
    claimToken: text(),
    claimedUntil: nullableTime(),
    /** Claims so far (a retry after `unpause` or a lost lease claims again). */
    attempts: integer().notNull().default(0),
    txHash: text(),
    sentAt: nullableTime(),
    executedAt: nullableTime(),
    error: text(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex().on(t.recurringPayoutId, t.paymentIndex), uniqueIndex().on(t.requestRowId)],
);
