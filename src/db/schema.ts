import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { Frequency } from '../recurrence.ts';

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

/** Money: integers of base units, up to uint256. */
const baseUnits = () => numeric({ precision: 78, scale: 0, mode: 'bigint' });

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
    id: uuid().primaryKey().defaultRandom(),
    /** ULID, the public handle in URLs. */
    token: text().notNull(),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    clientIdId: uuid().references(() => clientIds.id),
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
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    completedAt: nullableTime(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex().on(t.token), index().on(t.accountId, t.createdAt)],
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
    id: uuid().primaryKey().defaultRandom(),
    /** `01` + 64 hex digits. */
    requestId: text().notNull(),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    clientIdId: uuid().references(() => clientIds.id),
    securePaymentId: uuid().references(() => securePayments.id),
    position: integer(),
    network: text().notNull(),
    invoiceCurrency: text().notNull(),
    paymentCurrency: text().notNull(),
    /** In base units of the invoice currency (the payment currency's, unless it converts). */
    expectedAmount: baseUnits().notNull(),
    payee: text().notNull(),
    payer: text(),
    destinationId: uuid().references(() => payeeDestinations.id),
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
  },
  (t) => [
    uniqueIndex().on(t.requestId),
    uniqueIndex().on(t.network, t.paymentReference),
    index().on(t.network, t.referenceTopic),
    index().on(t.accountId, t.createdAt),
    index().on(t.securePaymentId),
    uniqueIndex().on(t.originalRequestId, t.occurrence),
  ],
);

/**
 * The schedule of a recurring request (`POST /v2/request` with `recurrence`), one row per
 * original. The generator creates occurrence `nextOccurrence` once `nextAt` (its calendar date,
 * src/recurrence.ts) has passed, and advances both in the same transaction.
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
    id: uuid().primaryKey().defaultRandom(),
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
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex().on(t.network, t.txHash, t.logIndex),
    index().on(t.requestRowId),
    index().on(t.accountId, t.timestamp),
    index().on(t.network, t.blockNumber),
  ],
);

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
    /** The calendar (src/recurrence.ts): occurrence n falls on `startDate` + n periods. */
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

/** A merchant's endpoint; the signing secret is sealed with SECRET_KEY. */
export const webhooks = pgTable(
  'webhooks',
  {
    id: text().primaryKey(),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    clientIdId: uuid().references(() => clientIds.id),
    url: text().notNull(),
    secretSealed: text().notNull(),
    active: boolean().notNull().default(true),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    deletedAt: nullableTime(),
  },
  (t) => [index().on(t.accountId), index().on(t.clientIdId)],
);

export const deliveryStatus = pgEnum('webhook_delivery_status', ['pending', 'delivered', 'failed']);

/**
 * The outbox: one row per (event, endpoint), written in the same transaction as the change
 * that caused it. `body` is the exact JSON sent on every attempt, so the signature and the
 * receiver's deduplication key (the row id) never change.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    /** ULID; sent as the delivery id header. */
    id: text().primaryKey(),
    webhookId: text()
      .notNull()
      .references(() => webhooks.id),
    event: text().notNull(),
    body: text().notNull(),
    test: boolean().notNull().default(false),
    /** The payment the event reports, if any: a reorg that drops it cancels what is unsent. */
    paymentId: uuid(),
    status: deliveryStatus().notNull().default('pending'),
    /** Attempts made so far (the next one is sent with this as its retry count). */
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull(),
    /** A dispatcher's claim: until then no other dispatcher takes the row. */
    lockedUntil: nullableTime(),
    lastStatusCode: integer(),
    lastError: text(),
    deliveredAt: nullableTime(),
    createdAt: createdAt(),
  },
  (t) => [
    index().on(t.status, t.nextAttemptAt),
    index().on(t.webhookId, t.createdAt),
    index().on(t.paymentId),
  ],
);

/** Every attempt of every delivery: the delivery log. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: uuid().primaryKey().defaultRandom(),
    deliveryId: text()
      .notNull()
      .references(() => webhookDeliveries.id),
    attempt: integer().notNull(),
    statusCode: integer(),
    error: text(),
    durationMs: integer().notNull(),
    at: createdAt(),
  },
  (t) => [index().on(t.deliveryId)],
);

export const walletType = pgEnum('wallet_type', ['evm', 'tron']);

/**
 * People who sign in, each in one account: by e-mail and password, or by wallet (SIWE). The
 * first wallet sign-in creates the account.
 */
export const users = pgTable(
  'users',
  {
    id: uuid().primaryKey().defaultRandom(),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    /** Lower-cased and trimmed. */
    email: text(),
    /** argon2id PHC string. */
    passwordHash: text(),
    /** Checksummed EVM or base58 Tron. */
    walletAddress: text(),
    walletType: walletType(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex().on(t.email), uniqueIndex().on(t.walletAddress), index().on(t.accountId)],
);

export const sessionKind = pgEnum('session_kind', ['wallet', 'email']);

/** Signed-in sessions; the token itself is only in the user's cookie, here its SHA-256. */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid().primaryKey().defaultRandom(),
    tokenHash: text().notNull(),
    userId: uuid()
      .notNull()
      .references(() => users.id),
    accountId: uuid()
      .notNull()
      .references(() => accounts.id),
    kind: sessionKind().notNull(),
    createdAt: createdAt(),
    /** Last request seen (written at most once a minute): wallet sessions end when idle. */
    lastSeenAt: timestamp({ withTimezone: true }).notNull(),
    /** Hard end, whatever the activity. */
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    endedAt: nullableTime(),
  },
  (t) => [uniqueIndex().on(t.tokenHash), index().on(t.userId), index().on(t.expiresAt)],
);

/** SIWE challenges: each nonce signs in once, within five minutes, with its exact message. */
export const walletChallenges = pgTable(
  'wallet_challenges',
  {
    id: uuid().primaryKey().defaultRandom(),
    nonce: text().notNull(),
    address: text().notNull(),
    walletType: walletType().notNull(),
    message: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    consumedAt: nullableTime(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex().on(t.nonce), index().on(t.expiresAt)],
);
