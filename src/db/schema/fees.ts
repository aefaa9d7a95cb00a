import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  index,
  integer,
  pgEnum,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { uuidV7 } from '../../base/uuid-v7.ts';
import { baseUnits, createdAt } from './columns.ts';
import { requests } from './links.ts';
import { clientIds, orchestrators } from './tenants.ts';

/**
 * What an orchestrator charges on the payments of its client IDs (`/v2/orchestrators/fee-configs`).
 * A config's identity (the fee type, always `orchestrator_fee`, its flow and its bearer, at its
 * level: the orchestrator's default or one client ID) never changes, and a level holds at most one
 * config per flow and bearer, disabled ones included: the partial unique indexes say so.
 */

export const feeFlow = pgEnum('fee_flow', ['incoming', 'outgoing']);
export const feeBearer = pgEnum('fee_bearer', ['payer', 'recipient']);
export const feeConfigStatus = pgEnum('fee_config_status', ['active', 'disabled']);

export const feeConfigs = pgTable(
  'fee_configs',
  {
    id: uuid()
      .primaryKey()
      .defaultRandom()
      // In time order (uuid-v7.ts), so configs made in one instant still list as made.
      .$defaultFn(() => uuidV7()),
    orchestratorId: uuid()
      .notNull()
      .references(() => orchestrators.id),
    /** Null for the orchestrator's default; else the client ID (row id) it is specific to. */
    clientIdId: uuid().references(() => clientIds.id),
    flow: feeFlow().notNull(),
    feeBearer: feeBearer().notNull(),
    /** Basis points of the payment's amount, 0 to 10,000. */
    bps: integer().notNull(),
    /** The most the fee may be, in USD with 8 decimals (the price feeds' unit); null: no cap. */
    usdCap: baseUnits(),
    evmRecipientAddress: text(),
    tronRecipientAddress: text(),
    status: feeConfigStatus().notNull().default('active'),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [
    uniqueIndex('fee_configs_default_pair')
      .on(t.orchestratorId, t.flow, t.feeBearer)
      .where(sql`${t.clientIdId} is null`),
    uniqueIndex('fee_configs_client_pair')
      .on(t.orchestratorId, t.clientIdId, t.flow, t.feeBearer)
      .where(sql`${t.clientIdId} is not null`),
    index().on(t.orchestratorId, t.createdAt),
    check('fee_configs_bps', sql`${t.bps} between 0 and 10000`),
    check(
      'fee_configs_recipient',
      sql`${t.evmRecipientAddress} is not null or ${t.tronRecipientAddress} is not null`,
    ),
  ],
);

/**
 * The fee legs of a payment: one per fee of the fee plan its link captured, each paid on chain
 * as its own fee-proxy payment to the fee's recipient with its own payment reference (minted as
 * a request's is, from `feeRequestId`), so detection tells it apart from the payee's leg. Written
 * with the link; `fee_leg_payments` holds what detection saw paid.
 */
export const feeLegs = pgTable(
  'fee_legs',
  {
    id: uuid()
      .primaryKey()
      .defaultRandom()
      .$defaultFn(() => uuidV7()),
    /** The payee's request the fee rides with. */
    requestRowId: uuid()
      .notNull()
      .references(() => requests.id),
    /** Its index in the plan's `fees`: the order of the fee calls after the payee's. */
    position: integer().notNull(),
    /** `01` + 64 hex digits, as a request's: the id its payment reference is minted from. */
    feeRequestId: text().notNull(),
    type: text().$type<'orchestrator_fee' | 'protocol_fee'>().notNull(),
    label: text().notNull(),
    feeBearer: text().$type<'payer' | 'payee'>().notNull(),
    network: text().notNull(),
    currency: text().notNull(),
    recipient: text().notNull(),
    /** Base units of `currency`. */
    amount: baseUnits().notNull(),
    salt: text().notNull(),
    /** 16 hex digits, no 0x. */
    paymentReference: text().notNull(),
    referenceTopic: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex().on(t.requestRowId, t.position),
    uniqueIndex().on(t.network, t.referenceTopic),
    check('fee_legs_amount', sql`${t.amount} > 0`),
  ],
);

/** A payment detection saw on a fee leg's reference; deleted with its block on a reorg. */
export const feeLegPayments = pgTable(
  'fee_leg_payments',
  {
    id: uuid()
      .primaryKey()
      .defaultRandom()
      .$defaultFn(() => uuidV7()),
    feeLegId: uuid()
      .notNull()
      .references(() => feeLegs.id),
    network: text().notNull(),
    txHash: text().notNull(),
    logIndex: integer().notNull(),
    blockNumber: bigint({ mode: 'bigint' }).notNull(),
    amount: baseUnits().notNull(),
    payerAddress: text(),
    timestamp: timestamp({ withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex().on(t.network, t.txHash, t.logIndex),
    index().on(t.feeLegId),
    index().on(t.network, t.blockNumber),
  ],
);
