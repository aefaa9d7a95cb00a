import { randomUUID } from 'node:crypto';
import { and, eq, gt, lte, type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { groupCommit } from '../db/group-commit.ts';
import { batchStatement, preparedPerDatabase } from '../db/prepared.ts';
import { idempotencyKeys, securePayments } from '../db/schema.ts';

/**
 * The rows behind `Idempotency-Key`. A request with a key costs two writes: an INSERT that
 * claims the key (or finds it taken) before the request runs, and one that keeps the answer
 * once it is sent; each is written together with those of concurrent requests (group commit),
 * one statement a group. The claim is an INSERT … ON CONFLICT, so two processes racing for one
 * key settle it in Postgres: exactly one gets the row back. A route whose own write can keep
 * the key with what it makes (a link: secure-payments/link-keys.ts) does so instead
 * (`KeyClaim`): no record, and nothing written beside what the request makes. A key is one
 * caller's for one request whichever way it is kept: a claim here finds a link's key held too.
 */

/** How long an answer is kept and replayed, per the IETF draft's and Stripe's 24 hours. */
export const RETAIN_MS = 24 * 60 * 60_000;
/**
 * How long a claim holds without an answer: past it, the process that claimed is taken for
 * dead (a request runs for seconds at most) and the key may be claimed again.
 */
export const LEASE_MS = 60_000;
/** `RETAIN_MS` as Postgres spells an interval. */
const RETAIN_INTERVAL = `${RETAIN_MS / 1000} seconds`;

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

/**
 * What a key holds when the claim found it taken; `elsewhere`: a route's own write keeps it
 * (a link), whose answer that route renders.
 */
export type Existing =
  | { readonly state: 'running' | 'elsewhere'; readonly hash: string }
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
    link: db
      .select({ hash: securePayments.idempotencyHash })
      .from(securePayments)
      .where(
        and(
          eq(securePayments.idempotencyScope, sql.placeholder('scope')),
          eq(securePayments.idempotencyKey, sql.placeholder('key')),
          gt(securePayments.createdAt, sql.placeholder('since')),
        ),
      )
      .prepare('idempotency_find_link'),
  };
});

/**
 * A claim as the statements read it from their JSON rows, made once per request as it passed
 * validation (`claimRowOf`).
 */
export interface ClaimRow {
  readonly scope: string;
  readonly key: string;
  readonly request_hash: string;
  readonly claim: string;
  readonly created_at: string;
  readonly locked_until: string;
  readonly expires_at: string;
}

/** The claim `request` makes at `now`, under a claim id of its own. */
export function claimRowOf(request: Omit<Claim, 'claim'>, now: Date): ClaimRow {
  return {
    scope: request.scope,
    key: request.key,
    request_hash: request.hash,
    claim: randomUUID(),
    created_at: now.toISOString(),
    locked_until: new Date(now.getTime() + LEASE_MS).toISOString(),
    expires_at: new Date(now.getTime() + RETAIN_MS).toISOString(),
  };
}

/** The claim a row makes, once it holds its key. */
export function claimOf(row: ClaimRow): Claim {
  return { scope: row.scope, key: row.key, hash: row.request_hash, claim: row.claim };
}

/**
 * The claim: an INSERT of the JSON array `rows` (`ClaimRow`s) that returns the claims it took.
 * Each takes a free key, an expired record, or a claim whose lease ran out (the same request
 * only: a different body under the key is still a reuse), and no key a link keeps; `created_at`
 * is the claim's own clock reading, so "expired" and "lease ran out" are judged at each
 * request's own time. A statement may not change one row twice, so each key is claimed once,
 * by the first of its rows: a later request with the same key is not claimed, and finds the
 * key held (a retry sent while the first is in flight). The keys are claimed in their order, so
 * two statements that share keys lock them in the same order.
 *
 * The statement's transaction commits without waiting for its WAL to reach the disk (one
 * flush less per group). That is safe for a claim: WAL is written in order, so the answer
 * stored after it commits durably only once the claim before it is on disk too. A crash that
 * loses the claim loses everything the request did after it. The setting is local to the
 * statement's transaction.
 */
function claimInsert(rows: Placeholder): SQL {
  return sql`insert into idempotency_keys
        (scope, key, request_hash, claim, created_at, locked_until, expires_at)
      select distinct on (t.scope, t.key) t.scope, t.key, t.request_hash, t.claim, t.created_at,
        t.locked_until, t.expires_at
      from rows from (jsonb_to_recordset(${rows}::jsonb) as (
        scope text, key text, request_hash text, claim text, created_at timestamptz,
        locked_until timestamptz, expires_at timestamptz)) with ordinality as t(
        scope, key, request_hash, claim, created_at, locked_until, expires_at, position)
      where set_config('synchronous_commit', 'off', true) is not null
        and not exists (
          select 1 from secure_payments
          where idempotency_scope = t.scope and idempotency_key = t.key
            and secure_payments.created_at > t.created_at - ${RETAIN_INTERVAL}::interval
        )
      order by t.scope, t.key, t.position
      on conflict (scope, key) do update set
        request_hash = excluded.request_hash, claim = excluded.claim,
        locked_until = excluded.locked_until, expires_at = excluded.expires_at,
        created_at = excluded.created_at, status = null, headers = null, body = null
      where idempotency_keys.expires_at <= excluded.created_at
        or (idempotency_keys.status is null
            and idempotency_keys.locked_until <= excluded.created_at
            and idempotency_keys.request_hash = excluded.request_hash)
      returning scope, key, claim`;
}

/** Claims the keys of a group of requests in one statement. */
const claimStatement = batchStatement<{ scope: string; key: string; claim: string }>(
  claimInsert(sql.placeholder('rows')),
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
    const claimed = await claimStatement(db, { rows: JSON.stringify(rows) });
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
 * Claims the key for this request: the claim when it is ours, or what the key holds when it
 * is not. Null when the row went away between the two looks (its request failed and released
 * it, or the janitor pruned it): the caller tries again.
 */
export async function claimKey(db: Database, row: ClaimRow): Promise<Claim | Existing | null> {
  if (await keyWriters(db).claims.write(row)) return claimOf(row);
  return findKey(db, row);
}

/**
 * What a key that another request holds has to say to this one (the row it tried to claim it
 * with); null when there is no such record, or only an expired one.
 */
export async function findKey(db: Database, row: ClaimRow): Promise<Existing | null> {
  const [found] = await statements(db).find.execute({ scope: row.scope, key: row.key });
  // None, or expired but not yet pruned (the next claim takes it over): a link may hold it.
  if (found === undefined || found.expiresAt <= new Date(row.created_at)) {
    const since = new Date(new Date(row.created_at).getTime() - RETAIN_MS);
    const [link] = await statements(db).link.execute({ scope: row.scope, key: row.key, since });
    return link?.hash ? { state: 'elsewhere', hash: link.hash } : null;
  }
  if (found.status === null) return { state: 'running', hash: found.hash };
  return {
    state: 'answered',
    hash: found.hash,
    answer: { status: found.status, headers: found.headers ?? {}, body: found.body ?? '' },
  };
}

/**
 * A key that a route's own write keeps with what the request makes, instead of a record
 * (idempotency/hooks.ts, `claimInWrite`). The write takes the key only while no one holds it,
 * and calls `claimed` once what it wrote is committed; when another request holds the key, it
 * writes nothing and throws `KeyTaken`.
 */
export interface KeyClaim {
  /** The key, its caller's scope and the request's hash (`request_hash`), for the write. */
  readonly row: ClaimRow;
  /** The write made what the request asked, under the key. */
  claimed(): void;
}

/** A route's write found its key held by another request, and wrote nothing. */
export class KeyTaken extends Error {
  constructor() {
    super('the Idempotency-Key is held by another request');
    this.name = 'KeyTaken';
  }
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
