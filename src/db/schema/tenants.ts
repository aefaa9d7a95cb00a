import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
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
import { createdAt, nullableTime } from './columns.ts';

/**
 * Accounts and what they authenticate and get paid with: API keys, client IDs, orchestrators and
 * their links, payee destinations.
 */

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
    /** Requests per minute per IP for this client ID; null means the default tier. */
    rateLimitPerMinute: integer(),
    /** Bound destination: links made with this client ID pay it (see payeeDestinations). */
    payeeDestinationId: uuid().references((): AnyPgColumn => payeeDestinations.id),
    /**
     * The hosted pay page's own client ID (one per deployment, allowed only on PAY_URL's
     * origin): it reads and pays any link by its token, and does nothing else.
     */
    firstParty: boolean().notNull().default(false),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    lastUsedAt: nullableTime(),
  },
  (t) => [
    uniqueIndex().on(t.clientId),
    index().on(t.accountId),
    uniqueIndex('client_ids_one_first_party').on(t.firstParty).where(sql`first_party`),
  ],
);

export type ClientIdRow = typeof clientIds.$inferSelect;

/** Fee and branding partners, provisioned by the operator; they own no account. */
export const orchestrators = pgTable(
  'orchestrators',
  {
    id: uuid().primaryKey().defaultRandom(),
    name: text().notNull(),
    createdAt: createdAt(),
    /**
     * The account whose signed-in user created it (`POST /v2/orchestrators`), at most one per
     * account; null for those the operator creates with the CLI.
     */
    accountId: uuid().references(() => accounts.id),
    /** `orchestratorContactEmail` at creation: whom the platform's payers may write to. */
    supportEmail: text(),
  },
  (t) => [uniqueIndex().on(t.accountId).where(sql`${t.accountId} is not null`)],
);

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

/** A KYT plan as stored: 1 or 2 unique providers, the first primary (priority 1). */
export interface StoredKytPlan {
  providers: {
    provider: 'hypernative' | 'merklescience';
    policyId: string | null;
    priority: number;
  }[];
}

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
    /** The KYT plan (api-facts §11.5) of the client ID, from its link intent or the merchant's PUT; null: none. */
    kytPlan: jsonb().$type<StoredKytPlan>(),
  },
  (t) => [uniqueIndex().on(t.clientIdId), index().on(t.orchestratorId, t.createdAt, t.id)],
);

/**
 * Where a payee wants to be paid: one wallet, one chain, one token. The destination id is the
 * wallet's ERC-7930 name plus the token. A wallet has at most one active destination per account.
 */
export const payeeDestinations = pgTable(
  'payee_destinations',
  {
    id: uuid().primaryKey().defaultRandom(),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    destinationId: text().notNull(),
    walletAddress: text().notNull(),
    chainId: integer().notNull(),
    network: text().notNull(),
    tokenAddress: text().notNull(),
    /**
     * How payers of the destination are screened and what its pay page hides: `kyt_all_wallets`
     * screens with `screeningProvider` (always set in that mode, always null with `off`).
     */
    accessPolicy: jsonb()
      .$type<{
        mode: 'off' | 'kyt_all_wallets';
        screeningProvider: 'hypernative' | 'merklescience' | null;
        hideUntilApproved: boolean;
        hidePayeeAddress: boolean;
      }>()
      .notNull()
      .default({
        mode: 'off',
        screeningProvider: null,
        hideUntilApproved: false,
        hidePayeeAddress: false,
      }),
    active: boolean().notNull().default(true),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [
    index().on(t.accountId, t.walletAddress),
    // The rule above, held by the database; activateDestination serialises on it.
    uniqueIndex('payee_destinations_one_active_per_wallet')
      .on(t.accountId, t.walletAddress)
      .where(sql`active`),
    uniqueIndex().on(t.accountId, t.destinationId),
    // payout-lookup finds a recipient's destination across accounts.
    index().on(t.walletAddress, t.active),
  ],
);

/** Single-use nonces of the EIP-712 messages that add or deactivate a destination. */
export const destinationNonces = pgTable(
  'destination_nonces',
  {
    nonce: text().primaryKey(),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    action: text().$type<'add' | 'deactivate'>().notNull(),
    walletAddress: text().notNull(),
    chainId: integer().notNull(),
    tokenAddress: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    consumedAt: nullableTime(),
    createdAt: createdAt(),
  },
  (t) => [index().on(t.expiresAt)],
);
