import { randomUUID } from 'node:crypto';
import { and, eq, lte, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { preparedPerDatabase } from '../db/prepared.ts';
import { idempotencyKeys } from '../db/schema.ts';

/**
 * The rows behind `Idempotency-Key`. A request with a key costs two statements on its way:
 * one INSERT that claims the key (or finds it taken), one UPDATE that keeps the answer. The
 * claim is a single INSERT … ON CONFLICT, so two processes racing for one key settle it in
 * Postgres: exactly one gets the row back.
 */

/** How long an answer is kept and replayed, per the IETF draft's and Stripe's 24 hours. */
export const RETAIN_MS = 24 * 60 * 60_000;
/**
 * How long a claim holds without an answer: past it, the process that claimed is taken for
 * dead (a request runs for seconds at most) and the key may be claimed again.
 */
export const LEASE_MS = 60_000;

export interface Claim {
  readonly scope: string;
  readonly key: string;
  readonly hash: string;
  readonly claim: string;
}

export interface StoredAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What a key holds when the claim found it taken. */
export type Existing =
  | { readonly state: 'running'; readonly hash: string }
  | { readonly state: 'answered'; readonly hash: string; readonly answer: StoredAnswer };

const statements = preparedPerDatabase((db) => {
  const t = idempotencyKeys;
  const now = sql.placeholder('now');
  const ours = and(
    eq(t.scope, sql.placeholder('scope')),
    eq(t.key, sql.placeholder('key')),
    eq(t.claim, sql.placeholder('claim')),
  );
  return {
    // Takes a free key, an expired record, or a claim whose lease ran out (the same request
    // only: a different body under the key is still a reuse).
    claim: db
      .insert(t)
      .values({
        scope: sql.placeholder('scope'),
        key: sql.placeholder('key'),
        requestHash: sql.placeholder('hash'),
        // The claim commits without waiting for its WAL to reach the disk (one flush less
        // per request, the bench's margin). That is safe: WAL is written in order, so the
        // route's own write, or the answer stored after it, commits durably only once the
        // claim before it is on disk too. A crash that loses the claim loses everything the
        // request did after it. The setting is local to this statement's transaction.
        claim: sql`(select ${sql.placeholder('claim')}::text where set_config('synchronous_commit', 'off', true) is not null)`,
        lockedUntil: sql.placeholder('lockedUntil'),
        expiresAt: sql.placeholder('expiresAt'),
      })
      .onConflictDoUpdate({
        target: [t.scope, t.key],
        set: {
          requestHash: sql`excluded.request_hash`,
          claim: sql`excluded.claim`,
          lockedUntil: sql`excluded.locked_until`,
          expiresAt: sql`excluded.expires_at`,
          createdAt: sql`excluded.created_at`,
          status: sql`null`,
          headers: sql`null`,
          body: sql`null`,
        },
        setWhere: sql`${t.expiresAt} <= ${now}::timestamptz or (${t.status} is null and ${t.lockedUntil} <= ${now}::timestamptz and ${t.requestHash} = excluded.request_hash)`,
      })
      .returning({ claim: t.claim })
      .prepare('idempotency_claim'),
    find: db
      .select({
        hash: t.requestHash,
        status: t.status,
        headers: t.headers,
        body: t.body,
        expiresAt: t.expiresAt,
      })
      .from(t)
      .where(and(eq(t.scope, sql.placeholder('scope')), eq(t.key, sql.placeholder('key'))))
      .prepare('idempotency_find'),
    store: db
      .update(t)
      .set({
        status: sql`${sql.placeholder('status')}::smallint`,
        headers: sql`${sql.placeholder('headers')}::jsonb`,
        body: sql`${sql.placeholder('body')}::text`,
      })
      .where(ours)
      .prepare('idempotency_store'),
    release: db.delete(t).where(ours).prepare('idempotency_release'),
  };
});

/**
 * Claims `key` for this request: the claim when it is ours, or what the key holds when it is
 * not. Null when the row went away between the two looks (its request failed and released it,
 * or the janitor pruned it): the caller tries again.
 */
export async function claimKey(
  db: Database,
  now: Date,
  request: Omit<Claim, 'claim'>,
): Promise<Claim | Existing | null> {
  const claim = randomUUID();
  const rows = await statements(db).claim.execute({
    ...request,
    claim,
    lockedUntil: new Date(now.getTime() + LEASE_MS),
    expiresAt: new Date(now.getTime() + RETAIN_MS),
    now: now.toISOString(),
  });
  if (rows[0]?.claim === claim) return { ...request, claim };
  const [row] = await statements(db).find.execute({ scope: request.scope, key: request.key });
  // Expired but not yet pruned: the next claim takes it over.
  if (row === undefined || row.expiresAt <= now) return null;
  if (row.status === null) return { state: 'running', hash: row.hash };
  return {
    state: 'answered',
    hash: row.hash,
    answer: { status: row.status, headers: row.headers ?? {}, body: row.body ?? '' },
  };
}

/** Keeps the answer of a claimed request, to be replayed until the record expires. */
export async function storeAnswer(db: Database, claim: Claim, answer: StoredAnswer): Promise<void> {
  await statements(db).store.execute({
    scope: claim.scope,
    key: claim.key,
    claim: claim.claim,
    status: answer.status,
    headers: JSON.stringify(answer.headers),
    body: answer.body,
  });
}

/** Frees the key again (the request failed on our side): a retry with it runs afresh. */
export async function releaseKey(db: Database, claim: Claim): Promise<void> {
  await statements(db).release.execute({ scope: claim.scope, key: claim.key, claim: claim.claim });
}

/** Deletes the records past their 24 hours (the janitor's round); how many went. */
export async function pruneExpiredKeys(db: Database, now: Date): Promise<number> {
  const gone = await db
    .delete(idempotencyKeys)
    .where(lte(idempotencyKeys.expiresAt, now))
    .returning({ key: idempotencyKeys.key });
  return gone.length;
}
