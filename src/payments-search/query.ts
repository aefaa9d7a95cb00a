import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { type KeysetPosition, keysetAt, olderThan } from '../db/keyset.ts';
import { payments, requests } from '../db/schema.ts';

/**
 * The SQL of `GET /v2/payments`, built once per search and run as built: the route runs it,
 * and the EXPLAIN test plans exactly these statements. Every statement walks an index in the
 * list's order (timestamp, id, newest first) and stops after the rows it needs, so its cost
 * follows the page and the count cap, not the number of matching payments.
 */

/** `total` is counted exactly up to this many rows; beyond it, it is the planner's estimate. */
export const TOTAL_COUNT_CAP = 1_000;

export interface SearchConditions {
  /** On the payment row (always including the account). */
  readonly payment: readonly SQL[];
  /** On the payment's request: when present, the request is joined. */
  readonly request: readonly SQL[];
  /**
   * A wallet's canonical key (`addressKey`), matched as payee, sender or connected wallet: three
   * ordered index walks merged, since one index cannot order an OR of three columns.
   */
  readonly walletKey?: string | undefined;
}

export interface SearchPage {
  readonly limit: number;
  readonly offset: number;
  readonly after?: KeysetPosition | undefined;
}

export interface PaymentSearchSql {
  /** The page (one row more than `limit`, to tell whether another follows), newest first. */
  readonly page: ReturnType<typeof pageQuery>;
  /** `{ n }`: the matching payments, counted up to TOTAL_COUNT_CAP + 1. */
  readonly cappedCount: SQL;
  /** Every matching payment, uncounted: only ever EXPLAINed, for the estimate past the cap. */
  readonly estimate: SQL;
}

const WALLET_COLUMNS = [payments.payeeKey, payments.payerKey, payments.payerEoaKey] as const;

export function paymentSearchSql(
  db: Database,
  conditions: SearchConditions,
  page: SearchPage,
): PaymentSearchSql {
  const joined = conditions.request.length > 0;
  const { walletKey } = conditions;
  const branchConditions: (SQL | undefined)[] =
    walletKey === undefined ? [undefined] : WALLET_COLUMNS.map((c) => eq(c, walletKey));

  // Rows are taken from each branch up to what the page can reach (offset + limit + 1).
  const reach = page.offset + page.limit + 1;
  const branch = (extra: SQL | undefined, positioned: boolean) => {
    const where = and(
      ...conditions.payment,
      ...conditions.request,
      extra,
      positioned && page.after ? olderThan(payments.timestamp, payments.id, page.after) : undefined,
    );
    const select = db.select({ id: payments.id, timestamp: payments.timestamp }).from(payments);
    return joined
      ? select.innerJoin(requests, eq(requests.id, payments.requestRowId)).where(where)
      : select.where(where);
  };

  const ordered = branchConditions.map((extra) =>
    branch(extra, true)
      .orderBy(desc(payments.timestamp), desc(payments.id))
      .limit(branchConditions.length === 1 ? page.limit + 1 : reach)
      .offset(branchConditions.length === 1 ? page.offset : 0),
  );
  const keys =
    ordered.length === 1
      ? sql`select k.id from (${ordered[0]}) k`
      : sql`select k.id from (${unionOf(ordered.map((q) => sql`${q}`))}) k order by k.timestamp desc, k.id desc limit ${page.limit + 1} offset ${page.offset}`;

  // Counted in the list's order too: it keeps the count on the index that bounds it (a
  // limited sequential scan looks as cheap to the planner, until the rows sit at the end).
  const capped = branchConditions.map((extra) =>
    branch(extra, false)
      .orderBy(desc(payments.timestamp), desc(payments.id))
      .limit(TOTAL_COUNT_CAP + 1)
      .getSQL(),
  );
  const counted = capped.length === 1 ? capped[0] : unionOf(capped);

  const matching = and(
    ...conditions.payment,
    ...conditions.request,
    walletKey === undefined ? undefined : sql`(${sql.join(branchConditions, sql` or `)})`,
  );
  return {
    page: pageQuery(db, keys),
    cappedCount: sql`select count(*)::int as n from (${counted}) c`,
    estimate: sql`select 1 from ${payments}${joined ? sql` inner join ${requests} on ${requests.id} = ${payments.requestRowId}` : sql``} where ${matching}`,
  };
}

function pageQuery(db: Database, keys: SQL) {
  return db
    .select({ payment: payments, request: requests, cursorAt: keysetAt(payments.timestamp) })
    .from(payments)
    .innerJoin(requests, eq(requests.id, payments.requestRowId))
    .where(sql`${payments.id} in (${keys})`)
    .orderBy(desc(payments.timestamp), desc(payments.id));
}

/** `(a) union (b) union (c)`: distinct rows, so a payment that is its own payee counts once. */
function unionOf(parts: readonly SQL[]): SQL {
  return sql.join(
    parts.map((part) => sql`(${part})`),
    sql` union `,
  );
}
