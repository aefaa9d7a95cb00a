import { index, jsonb, pgTable, primaryKey, smallint, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.ts';

/**
 * `Idempotency-Key`s (src/idempotency/): one row per caller scope and key. A row is claimed
 * while its request runs (`status` null, held until `lockedUntil`), then holds the answer to
 * replay until `expiresAt`. A claim whose lease ran out belongs to a process that died mid
 * request, and may be taken again; the janitor deletes rows past `expiresAt`.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    /** Whose key it is: the account, client ID or orchestrator (see idempotency/keys.ts). */
    scope: text().notNull(),
    key: text().notNull(),
    /** SHA-256 of method, path and canonical body: the same key must carry the same request. */
    requestHash: text().notNull(),
    /** Random per claim, so only the claim's own request stores or releases it. */
    claim: text().notNull(),
    lockedUntil: timestamp({ withTimezone: true }).notNull(),
    /** The answer's status; null while the first request runs. */
    status: smallint(),
    headers: jsonb().$type<Record<string, string>>(),
    body: text(),
    createdAt: createdAt(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index().on(t.expiresAt)],
);
