import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { uuidV7 } from '../../base/uuid-v7.ts';
import { createdAt, nullableTime } from './columns.ts';
import { accounts } from './tenants.ts';

/**
 * Payers of crypto-to-fiat payments (`/v2/payer`, api-facts §5): the integrator's user by its
 * own `clientUserId`, its KYC and agreement with the compliance provider, and its bank
 * accounts. Personal fields are never stored in clear: each row keeps them as one sealed JSON
 * document (`personal`, authenticated encryption bound to the row id) under the key named by
 * `keyId`, so a key rotation finds the rows still sealed under an old key by an index. Erasing a
 * payer clears `personal` and keeps the row for accounting (its id, owner, states and dates).
 */

export type KycStatus =
  | 'not_started'
  | 'initiated'
  | 'pending'
  | 'approved'
  | 'rejected'
  | 'retry_required'
  | 'failed';
export type AgreementStatus = 'not_started' | 'pending' | 'completed' | 'rejected' | 'failed';
export type PaymentDetailStatus = 'pending' | 'approved' | 'failed';

export const payers = pgTable(
  'payers',
  {
    /** The reference's `userId` (a UUID). */
    id: uuid()
      .primaryKey()
      .defaultRandom()
      .$defaultFn(() => uuidV7()),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    /** The integrator's own id for its user: any string, unique per account. */
    clientUserId: text().notNull(),
    /** The compliance provider's id for this user; null until the provider answered. */
    providerUserId: text(),
    /**
     * How many times the payer started over after an erasure: part of the idempotency key that
     * creates its customer, so the provider never answers a new submission with the erased one.
     */
    providerGeneration: integer().notNull().default(0),
    kycStatus: text().$type<KycStatus>().notNull().default('not_started'),
    agreementStatus: text().$type<AgreementStatus>().notNull().default('not_started'),
    /** The provider's hosted KYC and agreement pages (not personal: links, not data). */
    kycUrl: text(),
    agreementUrl: text(),
    /** The sealed personal fields of the KYC submission; null once erased. */
    personal: text(),
    /** The key `personal` is sealed under; null once erased. */
    keyId: text(),
    /** When the provider created the last callback applied to this payer: older ones are stale. */
    providerEventAt: nullableTime(),
    createdAt: createdAt(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    erasedAt: nullableTime(),
  },
  (t) => [
    uniqueIndex().on(t.accountId, t.clientUserId),
    index().on(t.keyId),
    index().on(t.providerUserId),
  ],
);

/** A payer's bank account: where the off-ramp sends fiat. */
export const paymentDetails = pgTable(
  'payment_details',
  {
    /** The reference's payment details id, `paymentDetailsId` of `/pay`. */
    id: uuid()
      .primaryKey()
      .defaultRandom()
      .$defaultFn(() => uuidV7()),
    payerId: uuid()
      .notNull()
      .references(() => payers.id),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    /** The provider's id for the bank account; null until the provider answered. */
    providerAccountId: text(),
    status: text().$type<PaymentDetailStatus>().notNull().default('pending'),
    /** ISO 4217, lower-case as the reference's examples. */
    currency: text().notNull(),
    rails: text().$type<'local' | 'swift' | 'wire'>().notNull().default('local'),
    beneficiaryType: text().$type<'individual' | 'business'>().notNull(),
    /** The sealed bank and holder fields (names, numbers, IBAN, address, document); null once erased. */
    personal: text(),
    keyId: text(),
    /** When the provider created the last callback applied to this account: older ones are stale. */
    providerEventAt: nullableTime(),
    createdAt: createdAt(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    erasedAt: nullableTime(),
  },
  (t) => [index().on(t.payerId, t.createdAt), index().on(t.keyId), index().on(t.providerAccountId)],
);

/** The compliance provider's callbacks already applied, by its event id: a replay changes nothing. */
export const complianceEvents = pgTable('compliance_events', {
  eventId: text().primaryKey(),
  receivedAt: createdAt(),
});
