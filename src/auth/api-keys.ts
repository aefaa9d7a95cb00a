import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { ValidationError } from '../base/errors.ts';
import { isUuid } from '../base/ids.ts';
import type { Database } from '../db/client.ts';
import { apiKeys } from '../db/schema.ts';
import { credentialsChanged } from '../http/credential-cache.ts';
import {
  API_KEY_PREFIX,
  digestSecret,
  looksLikeSecret,
  lookupPrefix,
  matchDigest,
  mintSecret,
} from './credentials.ts';
import { LABEL_MESSAGE, labelFits } from './labels.ts';

export const API_KEY_NOT_FOUND = 'API key not found';

/** A row id; anything else names no key, and must not reach a uuid column (a 500). */

export interface IssuedApiKey {
  readonly id: string;
  /** The only time the whole key exists outside the caller's hands. */
  readonly apiKey: string;
  readonly prefix: string;
  readonly label: string | null;
  readonly createdAt: Date;
}

/** What listings show of a key: never the key or its digest. */
export interface ApiKeySummary {
  readonly id: string;
  readonly prefix: string;
  readonly label: string | null;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

export type ApiKeyCheck =
  | { readonly status: 'valid'; readonly id: string; readonly accountId: string }
  | { readonly status: 'unknown' }
  | { readonly status: 'revoked' };

/** Inserts a new key for an account; `db` may be a transaction. */
export async function issueApiKey(
  db: Database,
  accountId: string,
  label: string | null = null,
  createdAt?: Date,
): Promise<IssuedApiKey> {
  const apiKey = mintSecret(API_KEY_PREFIX);
  const prefix = lookupPrefix(apiKey, API_KEY_PREFIX);
  const [row] = await db
    .insert(apiKeys)
    .values({
      accountId,
      label,
      prefix,
      keyHash: digestSecret(apiKey),
      ...(createdAt && { createdAt }),
    })
    .returning({ id: apiKeys.id, createdAt: apiKeys.createdAt });
  if (!row) throw new Error('api key insert returned no row');
  return { id: row.id, apiKey, prefix, label, createdAt: row.createdAt };
}

/** A label as the dashboard's user sent it: trimmed, and fitting (labels.ts), or none. */
export function apiKeyLabel(label: string | undefined): string | null {
  const trimmed = label?.trim();
  if (trimmed !== undefined && !labelFits(trimmed)) {
    throw new ValidationError([{ field: 'label', message: LABEL_MESSAGE }]);
  }
  return trimmed ?? null;
}

export async function listApiKeys(db: Database, accountId: string): Promise<ApiKeySummary[]> {
  return db
    .select({
      id: apiKeys.id,
      prefix: apiKeys.prefix,
      label: apiKeys.label,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.accountId, accountId))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

/**
 * Revokes one of the account's keys and says when it was revoked; a key revoked before keeps
 * its first time. Null when the account has no such key (another account's included).
 */
export async function revokeAccountApiKey(
  db: Database,
  clock: Clock,
  accountId: string,
  id: string,
): Promise<{ id: string; revokedAt: Date } | null> {
  if (!isUuid(id)) return null;
  const mine = and(eq(apiKeys.id, id), eq(apiKeys.accountId, accountId));
  const [revoked] = await db
    .update(apiKeys)
    .set({ revokedAt: clock.now() })
    .where(and(mine, isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id, revokedAt: apiKeys.revokedAt });
  if (revoked) credentialsChanged();
  const [row] = revoked
    ? [revoked]
    : await db.select({ id: apiKeys.id, revokedAt: apiKeys.revokedAt }).from(apiKeys).where(mine);
  return row?.revokedAt ? { id: row.id, revokedAt: row.revokedAt } : null;
}

export async function checkApiKey(db: Database, presented: string): Promise<ApiKeyCheck> {
  if (!looksLikeSecret(presented, API_KEY_PREFIX)) return { status: 'unknown' };
  const candidates = await db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.prefix, lookupPrefix(presented, API_KEY_PREFIX)));
  const match = matchDigest(candidates, presented);
  if (!match) return { status: 'unknown' };
  if (match.revokedAt !== null) return { status: 'revoked' };
  return { status: 'valid', id: match.id, accountId: match.accountId };
}

/** Revokes the key the caller holds (the operator's answer to a leaked key). */
export async function revokeApiKeyByValue(
  db: Database,
  clock: Clock,
  presented: string,
): Promise<'revoked' | 'already_revoked' | 'unknown'> {
  const check = await checkApiKey(db, presented);
  if (check.status === 'unknown') return 'unknown';
  if (check.status === 'revoked') return 'already_revoked';
  await revokeAccountApiKey(db, clock, check.accountId, check.id);
  return 'revoked';
}
