import { and, eq, isNull, or, type SQL, sql } from 'drizzle-orm';
import { ulid } from '../base/ulid.ts';
import type { Database } from '../db/client.ts';
import { clientIds, webhookDeliveries, webhooks } from '../db/schema.ts';

/**
 * Writes deliveries into the outbox. Callers pass the transaction that records the change the
 * event reports, so the event exists if and only if the change does.
 */

export interface Audience {
  readonly accountId: string;
  /** The client ID the request was created with, if any. */
  readonly clientIdId: string | null;
}

/**
 * Who hears of a payment (api-facts §1.1): the account's platform-wide endpoints (registered
 * with an API key or a session) hear of every payment of the account; an endpoint registered
 * with a client ID hears only of the requests made with that client ID. A client ID may be a
 * browser's, and so public: it must never be a way to listen to the rest of the account.
 */
export async function targetWebhooks(db: Database, audience: Audience): Promise<string[]> {
  return (await listeners(db, audience)).webhookIds;
}

/** What sending to an endpoint needs. */
interface Endpoint {
  readonly url: string;
  readonly secretSealed: string;
  readonly retryBackoffSeconds: number | null;
  readonly retryMaxDelaySeconds: number | null;
  readonly retryForSeconds: number | null;
}

/** The endpoints that hear of an audience's events, and the public id of its client ID. */
export interface Listeners {
  readonly webhookIds: string[];
  /** What sending to them needs, by id. */
  readonly endpoints: Map<string, Endpoint>;
  readonly clientId: string | null;
}

/** The endpoints that hear of the audience's events, and the public id of its client ID. */
export async function listeners(db: Database, audience: Audience): Promise<Listeners> {
  const rows = await db
    .select({
      id: webhooks.id,
      url: webhooks.url,
      secretSealed: webhooks.secretSealed,
      retryBackoffSeconds: webhooks.retryBackoffSeconds,
      retryMaxDelaySeconds: webhooks.retryMaxDelaySeconds,
      retryForSeconds: webhooks.retryForSeconds,
      clientId: clientIds.clientId,
    })
    .from(webhooks)
    .leftJoin(
      clientIds,
      audience.clientIdId === null ? sql`false` : eq(clientIds.id, audience.clientIdId),
    )
    .where(
      and(
        eq(webhooks.accountId, audience.accountId),
        eq(webhooks.active, true),
        isNull(webhooks.deletedAt),
        audience.clientIdId === null
          ? isNull(webhooks.clientIdId)
          : or(isNull(webhooks.clientIdId), eq(webhooks.clientIdId, audience.clientIdId)),
      ),
    );
  return {
    webhookIds: rows.map((row) => row.id),
    endpoints: new Map(
      rows.map((row) => [
        row.id,
        {
          url: row.url,
          secretSealed: row.secretSealed,
          retryBackoffSeconds: row.retryBackoffSeconds,
          retryMaxDelaySeconds: row.retryMaxDelaySeconds,
          retryForSeconds: row.retryForSeconds,
        },
      ]),
    ),
    clientId: rows[0]?.clientId ?? null,
  };
}

export interface EnqueueOptions {
  readonly test?: boolean;
  /** The payment the events report (a reorganisation that drops it cancels what is unsent). */
  readonly paymentId?: string;
  /**
   * Asks this process's dispatcher to take the rows about to be written (their number); the
   * lease to write them with, or null to leave them to be claimed.
   */
  readonly lease?: ((rows: number) => Date | null) | undefined;
}

type Events = readonly { readonly event: string; readonly payload: Record<string, unknown> }[];

/** A delivery as written. */
export type WrittenDelivery = typeof webhookDeliveries.$inferInsert & {
  readonly id: string;
  readonly body: string;
  readonly test: boolean;
  readonly createdAt: Date;
};

/**
 * One delivery per (event, webhook); the body is fixed now, `event` first. Given a `lease`, the
 * rows are written already claimed (their first attempt counted) by the dispatcher of this
 * process, which is handed them once the transaction commits: no other dispatcher takes them
 * before the lease ends, and after it they are sent like any other.
 */
export async function enqueue(
  db: Database,
  now: Date,
  webhookIds: readonly string[],
  events: Events,
  options: EnqueueOptions = {},
): Promise<string[]> {
  return (await writeDeliveries(db, now, webhookIds, events, options)).map((row) => row.id);
}

export async function writeDeliveries(
  db: Database,
  now: Date,
  webhookIds: readonly string[],
  events: Events,
  options: EnqueueOptions = {},
): Promise<WrittenDelivery[]> {
  const rows = deliveryRows(now, webhookIds, events, options);
  await insertDeliveries(db, rows);
  return rows;
}

/** Deliveries one INSERT writes at most (ten parameters a row). */
const INSERT_ROWS = 2_000;

/** The rows `writeDeliveries` writes, for a caller that writes several callers' at once. */
export function deliveryRows(
  now: Date,
  webhookIds: readonly string[],
  events: Events,
  options: EnqueueOptions = {},
): WrittenDelivery[] {
  const count = webhookIds.length * events.length;
  if (count === 0) return [];
  const leased = options.lease?.(count) ?? null;
  return webhookIds.flatMap((webhookId) =>
    events.map(({ event, payload }) => ({
      id: ulid(now.getTime()),
      webhookId,
      event,
      body: JSON.stringify({ event, ...payload }),
      test: options.test ?? false,
      paymentId: options.paymentId ?? null,
      nextAttemptAt: now,
      // The retry window runs from here, on the caller's clock, not the database's.
      createdAt: now,
      ...(leased !== null && { lockedUntil: leased, attempts: 1 }),
    })),
  );
}

/**
 * Writes deliveries made by `deliveryRows`, in their order, a few thousand a statement; with
 * `alongside` (a `with` list, as db/recordset.ts takes it), the first statement makes those
 * writes too, or a statement of their own when there are no rows.
 */
export async function insertDeliveries(
  db: Database,
  rows: readonly WrittenDelivery[],
  alongside: SQL | null = null,
): Promise<void> {
  if (rows.length === 0 && alongside !== null) await db.execute(sql`with ${alongside} select 1`);
  for (let i = 0; i < rows.length; i += INSERT_ROWS) {
    const insert = db.insert(webhookDeliveries).values(rows.slice(i, i + INSERT_ROWS));
    if (i === 0 && alongside !== null) await db.execute(sql`with ${alongside} ${insert.getSQL()}`);
    else await insert;
  }
}
