import { sql } from 'drizzle-orm';
import {
  bigint,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { uuidV7 } from '../../base/uuid-v7.ts';
import type { NetworkId } from '../../chains/networks.ts';
import { baseUnits, createdAt, nullableTime } from './columns.ts';

/**
 * Commerce payments (`/v2/commerce-payments`, contracts.md §5): a hold on a buyer's funds in
 * the escrow, captured to the merchant, voided, refunded or reclaimed. Each has a `requests`
 * row of the same `requestId` (payee the merchant, its payment reference the wrapper's key), so
 * the merchant's leg, which settles through ERC20FeeProxy, is detected as any payment is.
 */
export const commercePayments = pgTable(
  'commerce_payments',
  {
    id: uuid()
      .primaryKey()
      .defaultRandom()
      .$defaultFn(() => uuidV7()),
    /** The request's public id (`01` + 64 hex digits), the path's `{requestId}`. */
    requestId: text().notNull(),
    /**
     * The buyer's capability on the pay page (`PAY_URL/?commerce=<payToken>`): 64 hex digits,
     * 256 random bits (`newPayToken` of base/ids.ts).
     */
    payToken: text().notNull(),
    accountId: uuid().notNull(),
    clientIdId: uuid(),
    /** The browser origin a client ID created it from. */
    origin: text(),
    /** The caller's own name for the merchant (`merchantId` of the body). */
    merchantId: text().notNull(),
    network: text().$type<NetworkId>().notNull(),
    chainId: integer().notNull(),
    /** The currency id (`paymentCurrency`), e.g. `USDC-base`. */
    currency: text().notNull(),
    tokenAddress: text().notNull(),
    /** The wrapper and the escrow it wraps, on `network`, when the payment was created. */
    wrapper: text().notNull(),
    escrow: text().notNull(),
    merchant: text().notNull(),
    /** The buyer; null until known (a link the buyer authorizes from the pay page). */
    payer: text(),
    operator: text().notNull(),
    /** `AuthParams.tokenCollector`. */
    tokenCollector: text().notNull(),
    /** Base units. */
    amount: baseUnits().notNull(),
    maxAmount: baseUnits().notNull(),
    /** Unix seconds. */
    preApprovalExpiry: bigint({ mode: 'number' }).notNull(),
    authorizationExpiry: bigint({ mode: 'number' }).notNull(),
    refundExpiry: bigint({ mode: 'number' }).notNull(),
    /** 16 hex digits (8 bytes), no 0x: the wrapper's key, the request's payment reference. */
    paymentReference: text().notNull(),
    /** The escrow's `getHash(PaymentInfo)`, once the payer is known. */
    commercePaymentHash: text(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [
    uniqueIndex().on(t.requestId),
    uniqueIndex().on(t.payToken),
    uniqueIndex().on(t.network, t.paymentReference),
    index().on(t.accountId, t.id),
  ],
);

export type CommerceEventType =
  | 'authorized'
  | 'captured'
  | 'voided'
  | 'refunded'
  | 'reclaimed'
  | 'charged';

/**
 * What the wrapper's events say happened to a commerce payment, one row per log. A
 * reorganisation that drops the block deletes its rows: the state is always the sum of those
 * left.
 */
export const commerceEvents = pgTable(
  'commerce_events',
  {
    id: uuid()
      .primaryKey()
      .defaultRandom()
      .$defaultFn(() => uuidV7()),
    commercePaymentId: uuid()
      .notNull()
      .references(() => commercePayments.id),
    type: text().$type<CommerceEventType>().notNull(),
    /** Base units: authorized, captured (before the fee), voided, refunded or reclaimed. */
    amount: baseUnits().notNull(),
    network: text().$type<NetworkId>().notNull(),
    txHash: text().notNull(),
    logIndex: integer().notNull(),
    blockNumber: bigint({ mode: 'bigint' }).notNull(),
    blockHash: text().notNull(),
    blockTime: timestamp({ withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex().on(t.network, t.txHash, t.logIndex),
    index().on(t.commercePaymentId, t.blockNumber),
  ],
);

export type CommerceActionKind = 'authorize' | 'capture' | 'void' | 'refund';

/**
 * What the execute operations sent (`/authorize`, `/capture`, `/void`, `/refund`): reserved
 * under the payment's row lock before sending, so two racing captures of the last amount cannot
 * both pass the check; `pending` until signed, `sent` once signed (broadcast follows), then
 * `confirmed` or `failed` by its receipt, here or in the reconciler (reconciler.ts).
 */
export const commerceActions = pgTable(
  'commerce_actions',
  {
    id: uuid()
      .primaryKey()
      .defaultRandom()
      .$defaultFn(() => uuidV7()),
    commercePaymentId: uuid()
      .notNull()
      .references(() => commercePayments.id),
    kind: text().$type<CommerceActionKind>().notNull(),
    /** Base units; 0 for a void (it releases whatever is held). */
    amount: baseUnits().notNull(),
    feeBps: integer(),
    feeReceiver: text(),
    reason: text(),
    status: text().$type<'pending' | 'sent' | 'confirmed' | 'failed'>().notNull(),
    txHash: text(),
    /**
     * The operator's nonce the transaction takes: once the operator's mined count passes it
     * with the transaction unknown, it was dropped (the reconciler, reconciler.ts).
     */
    nonce: integer(),
    /**
     * The signed transaction, kept when it is marked sent: the reconciler broadcasts it again
     * while the node does not know it (a crash or an unclear answer before it reached one).
     */
    rawTransaction: text(),
    failureReason: text(),
    createdAt: createdAt(),
    endedAt: nullableTime(),
  },
  (t) => [
    index().on(t.commercePaymentId),
    index().on(t.status),
    /** One live action per transaction of a payment: a `signedTransaction` sent twice is one. */
    uniqueIndex('commerce_actions_one_per_transaction')
      .on(t.commercePaymentId, sql`lower(${t.txHash})`)
      .where(sql`${t.status} <> 'failed'`),
  ],
);
