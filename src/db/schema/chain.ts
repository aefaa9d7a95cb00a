import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { uuidV7 } from '../../base/uuid-v7.ts';
import { addressKey, baseUnits, createdAt } from './columns.ts';
import { requests } from './links.ts';
import { accounts, clientIds } from './tenants.ts';

/** What the indexers keep of each chain, and the payments they recorded. */

/**
 * How far each network's indexer has scanned: every block up to `lastBlock` (inclusive) is
 * confirmed and recorded. One row per network.
 */
export const chainCheckpoints = pgTable('chain_checkpoints', {
  network: text().primaryKey(),
  lastBlock: bigint({ mode: 'bigint' }).notNull(),
  updatedAt: createdAt(),
});

/**
 * Hashes of recently scanned blocks, per network: if the chain's hash at one of these heights
 * changes, the chain reorganised below our checkpoint and what we recorded above the fork is
 * rolled back and scanned again.
 */
export const chainBlocks = pgTable(
  'chain_blocks',
  {
    network: text().notNull(),
    number: bigint({ mode: 'bigint' }).notNull(),
    hash: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.network, t.number] })],
);

/**
 * Where the deployment's sandbox chain answers JSON-RPC. The process that runs the chain holds
 * the `payreq:sandbox` advisory lock and writes this row when it starts one; the other
 * processes send their sandbox calls to `rpcUrl`. A process that takes over starts a new chain
 * (a new `chainInstance`) and replaces the row.
 */
export const sandboxChains = pgTable('sandbox_chains', {
  network: text().primaryKey(),
  rpcUrl: text().notNull(),
  chainInstance: text().notNull(),
  startedAt: createdAt(),
});

/** One row per on-chain payment event matched to a request. */
export const payments = pgTable(
  'payments',
  {
    id: uuid()
      .primaryKey()
      .defaultRandom()
      // Written by us in time order (uuid-v7.ts): inserts append to the key's B-tree.
      .$defaultFn(() => uuidV7()),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    requestRowId: uuid()
      .notNull()
      .references(() => requests.id),
    network: text().notNull(),
    txHash: text().notNull(),
    logIndex: integer().notNull(),
    blockNumber: bigint({ mode: 'bigint' }).notNull(),
    blockHash: text().notNull(),
    /** Base units of the payment currency, fee excluded. */
    amount: baseUnits().notNull(),
    feeAmount: baseUnits().notNull(),
    /**
     * What the payment counts for, in base units of the request's invoice currency, fee
     * excluded: differs from `amount` on conversion payments (a fiat invoice paid in a token).
     * Null on rows older than the column, where it is `amount`.
     */
    requestAmount: baseUnits(),
    /** The fee in the invoice currency's base units, as `requestAmount`. */
    requestFeeAmount: baseUnits(),
    /** The payment's value in USD with 8 decimals, when a rate to USD was known at its block. */
    amountInUsd: baseUnits(),
    feeAddress: text(),
    tokenAddress: text(),
    payee: text().notNull(),
    /** The transaction's sender (or the resolved payer of an intent flow). */
    payerAddress: text(),
    /** The payer's connected wallet, when we know it. */
    payerEoaAddress: text(),
    paymentReference: text().notNull(),
    timestamp: timestamp({ withTimezone: true }).notNull(),
    /**
     * Null for a payment our detection saw on chain; `lifi` for one settled on the routing
     * aggregator's word that a bridge delivered it (api-facts §18), with `note` saying so.
     */
    detectionSource: text(),
    note: text(),
    /**
     * A cross-chain payment's (a bridge's fill delivered the tokens that paid): the network the
     * payer's deposit left (the fill's origin chain: its registry id, else its chain id), and
     * the deposit's transaction there when known (the payer's bridge intent names it). Null on
     * same-chain payments, where `tx_hash` is both.
     */
    sourceNetwork: text(),
    sourceTxHash: text(),
    createdAt: createdAt(),
    txHashKey: text()
      .generatedAlwaysAs(
        sql.raw(
          `lower(CASE WHEN "tx_hash" LIKE '0x%' THEN substr("tx_hash", 3) ELSE "tx_hash" END)`,
        ),
      )
      .notNull(),
    payeeKey: addressKey('payee').notNull(),
    payerKey: addressKey('payer_address'),
    payerEoaKey: addressKey('payer_eoa_address'),
    /**
     * The request's facts that the search filters on, copied when the payment is recorded
     * (`searchColumnsOf`) so that each filter walks one index of payments in the list's order
     * instead of joining every candidate to its request. A request's client ID and currencies
     * never change. Null only on rows older than the columns, until `backfillPaymentSearch`
     * runs at start.
     */
    clientIdId: uuid().references(() => clientIds.id),
    conversion: boolean(),
    /** The request's currency ids, lower-cased. */
    invoiceCurrencyKey: text(),
    paymentCurrencyKey: text(),
  },
  (t) => [
    uniqueIndex().on(t.network, t.txHash, t.logIndex),
    index().on(t.requestRowId),
    index().on(t.network, t.blockNumber),
    // The few payments settled on the aggregator's word, which detection's insert looks for
    // under each payment it writes (src/detection/record.ts): probing the unique index above
    // instead read every payment of the same transaction, 200 a batch's, for each of them.
    index('payments_settled_index')
      .on(t.network, t.txHash)
      .where(sql`${t.detectionSource} is not null`),
    // GET /v2/payments: newest first (id breaking ties), over all of an account's payments and
    // narrowed by each filter that lives on the payment. A wallet is payee, sender or connected
    // wallet: one ordered index each, merged by the query.
    index().on(t.accountId, t.timestamp, t.id),
    index().on(t.accountId, t.payeeKey, t.timestamp, t.id),
    index().on(t.accountId, t.payerKey, t.timestamp, t.id),
    index().on(t.accountId, t.payerEoaKey, t.timestamp, t.id),
    index().on(t.accountId, t.paymentReference, t.timestamp, t.id),
    index().on(t.accountId, t.txHashKey),
    index().on(t.accountId, t.conversion, t.timestamp, t.id),
    index('payments_crosschain')
      .on(t.accountId, t.timestamp, t.id)
      .where(sql`${t.sourceNetwork} is not null`),
    index().on(t.accountId, t.invoiceCurrencyKey, t.timestamp, t.id),
    index().on(t.accountId, t.paymentCurrencyKey, t.timestamp, t.id),
    // A client ID belongs to one account: its payments need no account column.
    index().on(t.clientIdId, t.timestamp, t.id),
  ],
);

/**
 * The dashboard's totals: what an account's payments came to per UTC day, token and direction
 * (`in`: paid to it; `out`: its payouts), kept by statement triggers on `payments` (migration
 * 0049: an insert adds, a reorganisation's delete takes away), so Home reads a few hundred rows
 * instead of summing every payment. `currency` is the request's payment currency id, `amount`
 * its base units, fee excluded.
 */
export const paymentDailyTotals = pgTable(
  'payment_daily_totals',
  {
    accountId: uuid().notNull(),
    day: date({ mode: 'string' }).notNull(),
    currency: text().notNull(),
    flow: text().$type<'in' | 'out'>().notNull(),
    amount: baseUnits().notNull(),
    payments: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day, t.currency, t.flow] })],
);
