import { and, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { batchStatement } from '../db/prepared.ts';
import { webhookDeliveries } from '../db/schema.ts';

/**
 * The dispatcher's statements: a claim of due deliveries that brings their endpoints along, and
 * the record of a batch of attempts. One statement each, the same text whatever the batch's
 * size (rows travel as parameters, not as statement text), planned at each run
 * (`batchStatement`): the outbox starts empty and grows, and a plan kept from its first minutes
 * would read all of it.
 */

/** A claimed delivery with what sending it needs from its endpoint. */
export interface Claimed {
  readonly id: string;
  readonly webhook_id: string;
  /** The endpoint's account (or orchestrator): accounts take turns for send slots. */
  readonly owner: string;
  readonly body: string;
  readonly test: boolean;
  /** Counting this one. */
  readonly attempts: number;
  /** When the event was written (ms since the epoch): retries stop a window after it. */
  readonly created_ms: number;
  /** When this claim's lease ends (ms since the epoch): after it, another dispatcher may send it. */
  readonly leased_until_ms: number;
  readonly url: string;
  readonly secret_sealed: string;
  /** False when the endpoint was switched off or deleted since the delivery was written. */
  readonly live: boolean;
  /** The endpoint's retry policy (`EndpointRetry`); null fields take the deployment's. */
  readonly retry_backoff_seconds: number | null;
  readonly retry_max_delay_seconds: number | null;
  readonly retry_for_seconds: number | null;
}

/**
 * Due rows are looked at oldest first, this many times the claim's size (each endpoint's budget
 * may leave most of them), skipping endpoints at their budget.
 */
const WINDOW_FACTOR = 4;

const claimStatement = batchStatement<Claimed>(
  sql`with due as (
        select id, webhook_id, next_attempt_at from webhook_deliveries
        where status = 'pending' and next_attempt_at <= ${sql.placeholder('now')}::timestamptz
          and (locked_until is null or locked_until <= ${sql.placeholder('now')}::timestamptz)
          and webhook_id <> all(string_to_array(${sql.placeholder('skip')}, ','))
        order by next_attempt_at
        limit ${sql.placeholder('window')}::integer
        for update skip locked),
      ranked as (
        select due.id, due.webhook_id, due.next_attempt_at,
               coalesce(w.account_id::text, w.orchestrator_id::text) as owner,
               row_number() over (partition by due.webhook_id
                                  order by due.next_attempt_at, due.id) as endpoint_rank
        from due join webhooks w on w.id = due.webhook_id),
      allowed as (
        select id, next_attempt_at, endpoint_rank,
               row_number() over (partition by owner
                                  order by endpoint_rank, next_attempt_at, id) as owner_rank
        from ranked
        where endpoint_rank <= coalesce((${sql.placeholder('budgets')}::jsonb ->> webhook_id)::integer,
                                        ${sql.placeholder('perEndpoint')}::integer)),
      claimed as (
        update webhook_deliveries
        set locked_until = ${sql.placeholder('leaseEnd')}::timestamptz, attempts = attempts + 1
        where id = any(array(
          select id from allowed
          order by owner_rank, endpoint_rank, next_attempt_at
          limit ${sql.placeholder('limit')}::integer))
        returning id, webhook_id, body, test, attempts, created_at)
      select c.id, c.webhook_id, coalesce(w.account_id::text, w.orchestrator_id::text) as owner,
             c.body, c.test, c.attempts,
             (extract(epoch from c.created_at) * 1000)::float8 as created_ms,
             (extract(epoch from ${sql.placeholder('leaseEnd')}::timestamptz) * 1000)::float8
               as leased_until_ms,
             w.url, w.secret_sealed, (w.active and w.deleted_at is null) as live,
             w.retry_backoff_seconds, w.retry_max_delay_seconds, w.retry_for_seconds
      from claimed c join webhooks w on w.id = c.webhook_id
      order by c.id`,
);

/** How many rows a claim may take per endpoint. */
export interface ClaimBudgets {
  /** By endpoint id; 0 leaves the endpoint out of the claim. */
  readonly budgets: Readonly<Record<string, number>>;
  /** For endpoints not named. */
  readonly otherwise: number;
}

const UNLIMITED: ClaimBudgets = { budgets: {}, otherwise: 2 ** 31 - 1 };

/**
 * Claims up to `limit` due deliveries until `leaseEnd` with `FOR UPDATE SKIP LOCKED`, so
 * concurrent dispatchers (processes or loops) never take the same row. Fair: at most each
 * endpoint's budget, and the accounts' rows interleaved (every account's first row, then every
 * account's second, each account's endpoints interleaved likewise), so one endpoint's backlog
 * never fills a claim while another's rows are due. The ids are picked first
 * (`= any(array(…))`), from a window of the oldest due rows walked on the queue's index, so
 * the update looks its rows up by key once the table is larger than a few pages.
 */
export function claimDue(
  db: Database,
  now: Date,
  leaseEnd: Date,
  limit: number,
  budgets: ClaimBudgets = UNLIMITED,
): Promise<Claimed[]> {
  const skip = Object.keys(budgets.budgets).filter((id) => budgets.budgets[id] === 0);
  return claimStatement(db, {
    now: now.toISOString(),
    leaseEnd: leaseEnd.toISOString(),
    limit,
    window: WINDOW_FACTOR * limit,
    // Webhook ids (`whk_` and a ULID) hold no comma.
    skip: skip.join(','),
    budgets: JSON.stringify(budgets.budgets),
    perEndpoint: budgets.otherwise,
  });
}

const handBackStatement = batchStatement(
  sql`update webhook_deliveries as d
      set locked_until = null, attempts = d.attempts - 1,
          next_attempt_at = greatest(d.next_attempt_at,
                                     coalesce(${sql.placeholder('until')}::timestamptz, d.next_attempt_at))
      from json_to_recordset(${sql.placeholder('rows')}::json)
        as v(id text, attempts integer, leased timestamptz)
      where d.id = v.id and d.attempts = v.attempts and d.locked_until = v.leased
        and d.status = 'pending'
        and d.id = any(string_to_array(${sql.placeholder('ids')}, ','))`,
);

/**
 * Gives claimed rows back unsent: their lease ends now (or they wait until `until`), and the
 * attempt their claim counted is uncounted. A row claimed by another since (its lease ran out),
 * even one given back since, is not this dispatcher's to give back, and is left: its attempts
 * or its lease differ from this claim's.
 */
export async function handBack(
  db: Database,
  rows: readonly Pick<Claimed, 'id' | 'attempts' | 'leased_until_ms'>[],
  until: Date | null = null,
): Promise<void> {
  if (rows.length === 0) return;
  await handBackStatement(db, {
    ids: rows.map((row) => row.id).join(','),
    rows: JSON.stringify(
      rows.map((row) => ({
        id: row.id,
        attempts: row.attempts,
        leased: new Date(row.leased_until_ms).toISOString(),
      })),
    ),
    until: until?.toISOString() ?? null,
  });
}

/**
 * An endpoint that answered nothing twice in a row (timeouts, refused connections) backs off:
 * its deliveries never tried and due before `until` (the retry of the one that failed) wait
 * until then, unclaimed, so every dispatcher sends it its retries rather than its whole queue.
 * Retries keep their own schedules.
 */
export async function deferEndpoint(
  db: Database,
  webhookId: string,
  now: Date,
  until: Date,
): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: until })
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhookId),
        eq(webhookDeliveries.status, 'pending'),
        eq(webhookDeliveries.attempts, 0),
        lt(webhookDeliveries.nextAttemptAt, until),
        or(isNull(webhookDeliveries.lockedUntil), lte(webhookDeliveries.lockedUntil, now)),
      ),
    );
}

/** Deliveries to an endpoint switched off or deleted: failed, never sent. */
export async function failOrphaned(db: Database, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(webhookDeliveries)
    .set({ status: 'failed', lockedUntil: null, lastError: 'the endpoint is inactive or deleted' })
    .where(inArray(webhookDeliveries.id, [...ids]));
}

/** What one attempt came to. */
export interface AttemptRecord {
  readonly deliveryId: string;
  readonly attempt: number;
  readonly status: 'delivered' | 'failed' | 'pending';
  readonly statusCode: number | null;
  readonly error: string | null;
  /** The start of the receiver's answer, when it answered with a body. */
  readonly responseExcerpt: string | null;
  readonly durationMs: number;
  readonly at: Date;
  /** When to try again; null once delivered. */
  readonly nextAttemptAt: Date | null;
}

const recordStatement = batchStatement(
  sql`with v as (
        select id, attempt, status, status_code, error, response_excerpt, duration_ms,
               to_timestamp(at_ms / 1000.0) as at, to_timestamp(next_ms / 1000.0) as next_attempt_at
        from json_to_recordset(${sql.placeholder('attempts')}::json)
        as v(id text, attempt integer, status text, status_code integer, error text,
             response_excerpt text, duration_ms integer, at_ms float8, next_ms float8)),
      logged as (
        insert into webhook_attempts (delivery_id, attempt, status_code, error, response_excerpt,
                                      duration_ms, at)
        select id, attempt, status_code, error, response_excerpt, duration_ms, at from v
        on conflict do nothing)
      update webhook_deliveries as d
      set status = v.status::webhook_delivery_status,
          locked_until = null,
          last_status_code = v.status_code,
          last_error = v.error,
          delivered_at = case when v.status = 'delivered' then v.at else d.delivered_at end,
          next_attempt_at = coalesce(v.next_attempt_at, d.next_attempt_at)
      from v
      where d.id = v.id and d.attempts = v.attempt
        and d.id = any(string_to_array(${sql.placeholder('ids')}, ','))`,
);

/**
 * Writes attempts to the log and their outcome to the deliveries, in one statement (so both or
 * neither). An attempt already logged (the same statement retried after a commit it did not
 * hear of) is logged once. The attempts travel as one JSON array, serialised natively rather
 * than element by element, with their times as milliseconds (a Date's JSON is its ISO text,
 * dearer to write), and no enum array (which PGlite cannot send on a data dir it opened before
 * the migrations created the enum); their ids travel again, joined by commas (a ULID has none).
 * Until it runs the rows keep their leases: a crash before it means a resend (at least once),
 * never a lost delivery. An attempt whose row was claimed again since (its lease ran out, and
 * another dispatcher counted an attempt of its own) is logged, but leaves the row to that
 * claim: its outcome, and its lease, are the later attempt's to write.
 */
export async function recordAttempts(
  db: Database,
  attempts: readonly AttemptRecord[],
): Promise<void> {
  if (attempts.length === 0) return;
  await recordStatement(db, {
    // The ids again, split into an array whose length the planner reads (the statement is
    // planned with its values): it then finds the rows by key. From the JSON alone it assumes
    // a hundred rows, and on an outbox of some thousands it chose to read the whole table.
    ids: attempts.map((a) => a.deliveryId).join(','),
    attempts: JSON.stringify(
      attempts.map((a) => ({
        id: a.deliveryId,
        attempt: a.attempt,
        status: a.status,
        status_code: a.statusCode,
        error: a.error === null ? null : storable(a.error),
        response_excerpt: a.responseExcerpt === null ? null : storable(a.responseExcerpt),
        duration_ms: a.durationMs,
        at_ms: a.at.getTime(),
        next_ms: a.nextAttemptAt?.getTime() ?? null,
      })),
    ),
  });
}

/**
 * Text Postgres can hold: a lone UTF-16 surrogate (which JSON carries but Postgres refuses) and
 * NUL (which no Postgres text holds) become U+FFFD, so one odd error message cannot fail the
 * record of a whole batch.
 */
function storable(text: string): string {
  return text.toWellFormed().replaceAll('\u0000', '\ufffd');
}
