import { and, desc, eq, gt, gte, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import type { Database } from '../db/client.ts';
import {
  decodeCursor,
  type KeysetPosition,
  keysetAt,
  keysetPage,
  olderThan,
} from '../db/keyset.ts';
import { requests, securePayments } from '../db/schema.ts';
import { requestsOfLinks } from '../requests/requests.ts';
import { DEFAULT_REDIRECT_LABEL } from './create.ts';
import { childrenOfParents, multicallCompletedAt, multicallStatus } from './link-children.ts';
import { effectiveStatus } from './link-row.ts';
import { securePaymentUrl } from './mint-link.ts';

export interface ListFilter {
  readonly requestId?: string | undefined;
  /** One link, by its token (the dashboard's link page). */
  readonly token?: string | undefined;
  /**
   * Ours: only links awaiting payment (`pending`, not expired), `expired` ones (pending past
   * their expiry, or expired) or `completed` ones.
   */
  readonly status?: 'pending' | 'expired' | 'completed' | undefined;
  readonly payout?: boolean | undefined;
  readonly createdFrom?: Date | undefined;
  readonly createdTo?: Date | undefined;
  readonly cursor?: string | undefined;
  readonly limit: number;
}

/** Newest first; the cursor is the last item's (createdAt, id), so pages never overlap or skip. */
export async function listLinks(
  db: Database,
  clock: Clock,
  payUrl: string,
  accountId: string,
  filter: ListFilter,
) {
  let linkId: string | undefined;
  if (filter.requestId !== undefined) {
    const [match] = await db
      .select({ id: requests.securePaymentId })
      .from(requests)
      .where(
        and(
          eq(requests.accountId, accountId),
          eq(requests.requestId, filter.requestId.toLowerCase()),
        ),
      );
    if (!match?.id)
      return {
        securePayments: [],
        pagination: { limit: filter.limit, nextCursor: null, hasMore: false },
      };
    linkId = match.id;
  }
  const rows = await linkListQuery(db, accountId, {
    ...filter,
    now: clock.now(),
    linkId,
    after: filter.cursor === undefined ? undefined : decodeCursor(filter.cursor),
    limit: filter.limit + 1,
  });
  const paged = keysetPage(rows, filter.limit, (row) => ({
    cursorAt: row.cursorAt,
    id: row.link.id,
  }));
  const page = paged.page.map((row) => row.link);
  const children = await requestsOfLinks(
    db,
    page.map((row) => row.id),
  );
  const multicalls = await childrenOfParents(
    db,
    page.filter((row) => row.multicall).map((row) => row.id),
  );
  const now = clock.now();
  return {
    securePayments: page.map((row) => {
      const parentOf = row.multicall ? (multicalls.get(row.id) ?? []) : null;
      const ids = parentOf
        ? parentOf.flatMap((child) => child.requests.map((r) => r.requestId))
        : children.filter((r) => r.securePaymentId === row.id).map((r) => r.requestId);
      const status = parentOf ? multicallStatus(row, parentOf, now) : effectiveStatus(row, now);
      // A parent is never completed itself: its children are.
      const completedAt = parentOf ? multicallCompletedAt(status, parentOf) : row.completedAt;
      return {
        token: row.token,
        securePaymentUrl: securePaymentUrl(payUrl, row.token),
        status,
        payout: row.payout,
        paymentType: parentOf
          ? ('multicall' as const)
          : ids.length > 1
            ? ('batch' as const)
            : ('single' as const),
        requestIds: ids,
        network: row.network,
        reference: row.reference,
        redirectUrl: row.redirectUrl,
        redirectLabel: row.redirectLabel ?? DEFAULT_REDIRECT_LABEL,
        createdAt: row.createdAt.toISOString(),
        expiresAt: row.expiresAt.toISOString(),
        completedAt: completedAt?.toISOString() ?? null,
      };
    }),
    pagination: paged.pagination,
  };
}

/**
 * The list's statement, newest first (id breaking ties): one walk of the account's
 * (created_at, id) index, or of its (payout, created_at, id) one. Exported so the EXPLAIN test
 * plans the statement the route runs.
 */
export function linkListQuery(
  db: Database,
  accountId: string,
  filter: Omit<ListFilter, 'requestId' | 'cursor'> & {
    readonly now?: Date | undefined;
    readonly linkId?: string | undefined;
    readonly after?: KeysetPosition | undefined;
  },
) {
  const conditions: SQL[] = [eq(securePayments.accountId, accountId)];
  if (filter.payout !== undefined) conditions.push(eq(securePayments.payout, filter.payout));
  if (filter.createdFrom) conditions.push(gte(securePayments.createdAt, filter.createdFrom));
  if (filter.createdTo) conditions.push(lte(securePayments.createdAt, filter.createdTo));
  if (filter.linkId !== undefined) conditions.push(eq(securePayments.id, filter.linkId));
  if (filter.token !== undefined) {
    conditions.push(eq(securePayments.token, filter.token.toUpperCase()));
  }
  const now = filter.now ?? new Date();
  if (filter.status === 'completed') conditions.push(eq(securePayments.status, 'completed'));
  if (filter.status === 'pending') {
    conditions.push(eq(securePayments.status, 'pending'), gt(securePayments.expiresAt, now));
  }
  if (filter.status === 'expired') {
    conditions.push(
      or(
        eq(securePayments.status, 'expired'),
        and(eq(securePayments.status, 'pending'), lte(securePayments.expiresAt, now)),
      ) ?? sql`false`,
    );
  }
  if (filter.after)
    conditions.push(olderThan(securePayments.createdAt, securePayments.id, filter.after));
  return db
    .select({ link: securePayments, cursorAt: keysetAt(securePayments.createdAt) })
    .from(securePayments)
    .where(and(...conditions))
    .orderBy(desc(securePayments.createdAt), desc(securePayments.id))
    .limit(filter.limit);
}
