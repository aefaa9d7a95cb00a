import { sql } from 'drizzle-orm';
import {
  check,
  index,
  integer,
  pgEnum,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { uuidV7 } from '../../base/uuid-v7.ts';
import { baseUnits, createdAt } from './columns.ts';
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
