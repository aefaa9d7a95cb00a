import {
  index,
  integer,
  jsonb,
  numeric,
  pgEnum,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/**
 * Tables. Column names are snake_case in SQL (the client is built with `casing: 'snake_case'`).
 * Money is `numeric(78,0)` base units; credentials are stored only as SHA-256 digests next to a
 * short lookup prefix, never in clear.
 */

const createdAt = () => timestamp({ withTimezone: true }).notNull().defaultNow();
const nullableTime = () => timestamp({ withTimezone: true });

/** The tenant: everything a merchant creates hangs off one account. */
export const accounts = pgTable('accounts', {
  id: uuid().primaryKey().defaultRandom(),
  name: text().notNull(),
  createdAt: createdAt(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid().primaryKey().defaultRandom(),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    label: text(),
    /** First characters of the key, kept in clear to find the row and to show in listings. */
    prefix: text().notNull(),
    /** Hex SHA-256 of the whole key. */
    keyHash: text().notNull(),
    createdAt: createdAt(),
    lastUsedAt: nullableTime(),
    revokedAt: nullableTime(),
  },
  (t) => [index().on(t.prefix), index().on(t.accountId)],
);

export const clientIdStatus = pgEnum('client_id_status', ['active', 'inactive', 'revoked']);

export const clientIds = pgTable(
  'client_ids',
  {
    id: uuid().primaryKey().defaultRandom(),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    /** The public `cli_…` value sent in `x-client-id`. */
    clientId: text().notNull(),
    label: text().notNull(),
    /** Normalised origins (`https://shop.example`); empty means a backend client ID. */
    allowedDomains: jsonb().$type<string[]>().notNull().default([]),
    status: clientIdStatus().notNull().default('active'),
    feePercentage: numeric({ precision: 5, scale: 2 }),
    feeAddress: text(),
    operatorWalletAddress: text(),
    defaultPreApprovalExpiry: integer(),
    defaultAuthorizationExpiry: integer(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    lastUsedAt: nullableTime(),
  },
  (t) => [uniqueIndex().on(t.clientId), index().on(t.accountId)],
);

/** Fee and branding partners, provisioned by the operator; they own no account. */
export const orchestrators = pgTable('orchestrators', {
  id: uuid().primaryKey().defaultRandom(),
  name: text().notNull(),
  createdAt: createdAt(),
});

export const orchestratorKeys = pgTable(
  'orchestrator_keys',
  {
    id: uuid().primaryKey().defaultRandom(),
    orchestratorId: uuid()
      .notNull()
      .references(() => orchestrators.id),
    prefix: text().notNull(),
    keyHash: text().notNull(),
    createdAt: createdAt(),
    lastUsedAt: nullableTime(),
    revokedAt: nullableTime(),
  },
  (t) => [index().on(t.prefix)],
);

export const orchestratorLinkStatus = pgEnum('orchestrator_link_status', ['active', 'unlinked']);

/**
 * A client ID belongs to at most one orchestrator, ever: the row stays (as `unlinked`) after an
 * unlink so the client ID cannot be linked again.
 */
export const orchestratorClientLinks = pgTable(
  'orchestrator_client_links',
  {
    id: uuid().primaryKey().defaultRandom(),
    orchestratorId: uuid()
      .notNull()
      .references(() => orchestrators.id),
    clientIdId: uuid()
      .notNull()
      .references(() => clientIds.id),
    status: orchestratorLinkStatus().notNull().default('active'),
    createdAt: createdAt(),
    unlinkedAt: nullableTime(),
  },
  (t) => [uniqueIndex().on(t.clientIdId), index().on(t.orchestratorId)],
);
