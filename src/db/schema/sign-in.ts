import { index, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, nullableTime } from './columns.ts';
import { accounts } from './tenants.ts';

/** People who sign in, their sessions and wallet challenges. */

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
