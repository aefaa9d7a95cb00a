import { randomUUID } from 'node:crypto';
import { and, eq, lte, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { groupCommit } from '../db/group-commit.ts';
import { batchStatement, preparedPerDatabase } from '../db/prepared.ts';
import { idempotencyKeys } from '../db/schema.ts';

/**
 * The rows behind `Idempotency-Key`. A request with a key costs two writes on its way: an
 * INSERT that claims the key (or finds it taken), an UPDATE that keeps the answer; each is
 * written together with those of concurrent requests (group commit), one statement a group.
 * The claim is an INSERT … ON CONFLICT, so two processes racing for one key settle it in
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
  const ours = and(
    eq(t.scope, sql.placeholder('scope')),
    eq(t.key, sql.placeholder('key')),
    eq(t.claim, sql.placeholder('claim')),
  );
  return {
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
    release: db.delete(t).where(ours).prepare('idempotency_release'),
  };
});

/** A claim as the claim statement reads it from its JSON rows. */
interface ClaimRow {
  readonly scope: string;
  readonly key: string;
  readonly request_hash: string;
  readonly claim: string;
  readonly created_at: string;
  readonly locked_until: string;
  readonly expires_at: string;
}

/**
 * Claims the keys of a group of requests in one statement. Each takes a free key, an expired
 * record, or a claim whose lease ran out (the same request only: a different body under the
 * key is still a reuse); `created_at` is the claim's own clock reading, so "expired" and
 * "lease ran out" are judged at each request's own time. The rows it claimed come back.
 *
 * The claim commits without waiting for its WAL to reach the disk (one flush less per
 * group). That is safe: WAL is written in order, so the route's own write, or the answer
 * stored after it, commits durably only once the claim before it is on disk too. A crash
 * that loses the claim loses everything the request did after it. The setting is local to
 * this statement's transaction.
 *
 * A statement may not change one row twice, so a group sends each key once: a later request
 * of the group with the same key is not claimed, and finds the key running (a retry sent
 * while the first is in flight, answered 409).
 */
const claimStatement = batchStatement<{ scope: string; key: string; claim: string }>(
  sql`insert into idempotency_keys
        (scope, key, request_hash, claim, created_at, locked_until, expires_at)
      select scope, key, request_hash, claim, created_at, locked_until, expires_at
      from jsonb_to_recordset(${sql.placeholder('rows')}::jsonb) as t(
        scope text, key text, request_hash text, claim text,
        created_at timestamptz, locked_until timestamptz, expires_at timestamptz)
      where set_config('synchronous_commit', 'off', true) is not null
      on conflict (scope, key) do update set
        request_hash = excluded.request_hash, claim = excluded.claim,
        locked_until = excluded.locked_until, expires_at = excluded.expires_at,
        created_at = excluded.created_at, status = null, headers = null, body = null
      where idempotency_keys.expires_at <= excluded.created_at
        or (idempotency_keys.status is null
            and idempotency_keys.locked_until <= excluded.created_at
            and idempotency_keys.request_hash = excluded.request_hash)
      returning scope, key, claim`,
);

/** An answer as the store statement reads it from its JSON rows. */
interface AnswerRow {
  readonly scope: string;
  readonly key: string;
  readonly claim: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Keeps the answers of a group of requests, each only where its own claim still holds. */
const storeStatement = batchStatement(
  sql`update idempotency_keys as k
      set status = t.status, headers = t.headers, body = t.body
      from jsonb_to_recordset(${sql.placeholder('rows')}::jsonb) as t(
        scope text, key text, claim text, status smallint, headers jsonb, body text)
      where k.scope = t.scope and k.key = t.key and k.claim = t.claim`,
);

/**
 * The claims and answers of concurrent requests, written together (db/group-commit.ts); their
 * counts are what tests observe.
 */
export const keyWriters = preparedPerDatabase((db) => {
  const claimGroup = async (rows: readonly ClaimRow[]) => {
    const once = new Map<string, ClaimRow>();
    for (const row of rows) {
      const id = `${row.scope}\n${row.key}`;
      if (!once.has(id)) once.set(id, row);
    }
    const claimed = await claimStatement(db, { rows: JSON.stringify([...once.values()]) });
    const ours = new Set(claimed.map((row) => row.claim));
    return rows.map((row) => ours.has(row.claim));
  };
  const storeGroup = async (rows: readonly AnswerRow[]) => {
    await storeStatement(db, { rows: JSON.stringify(rows) });
    return rows.map(() => undefined);
  };
  return {
    claims: groupCommit<ClaimRow, boolean>({
      writeGroup: claimGroup,
      writeOne: async (row) => (await claimGroup([row]))[0] === true,
    }),
    answers: groupCommit<AnswerRow, undefined>({
      writeGroup: storeGroup,
      writeOne: async (row) => {
        await storeGroup([row]);
      },
    }),
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
  const ours = await keyWriters(db).claims.write({
    scope: request.scope,
    key: request.key,
    request_hash: request.hash,
    claim,
    created_at: now.toISOString(),
    locked_until: new Date(now.getTime() + LEASE_MS).toISOString(),
    expires_at: new Date(now.getTime() + RETAIN_MS).toISOString(),
  });
  if (ours) return { ...request, claim };
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
  await keyWriters(db).answers.write({
    scope: claim.scope,
    key: claim.key,
    claim: claim.claim,
    status: answer.status,
    headers: answer.headers,
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
