import { and, desc, eq, type SQL } from 'drizzle-orm';
import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { decodeCursor, keysetAt, keysetPage, olderThan } from '../../db/keyset.ts';
import { recurringPayouts } from '../../db/schema.ts';
import { CURSOR_PAGE_QUERY, CURSOR_PAGINATION } from '../../http/pages.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { RECURRING_SUMMARY_FIELDS, Status } from '../recurring/schemas.ts';
import { recurringSummary } from '../recurring/views.ts';
import { PAYOUT_TAGS } from '../schemas.ts';

const DEFAULT_PAGE = 20;

/**
 * Ours: the account's recurring payouts, newest first, each with where it stands and its next
 * date (the reference reads one at a time, by the id its creation answered). Server-side
 * credentials only, as the links list.
 */
export function registerListRecurringPayouts(
  app: App,
  deps: { db: Database; chains: ChainRegistry; payUrl: string },
): void {
  app.get(
    '/v2/payouts/recurring',
    {
      config: { auth: ['apiKey', 'session'] },
      schema: {
        tags: PAYOUT_TAGS,
        summary: 'Ours: the account’s recurring payouts, newest first',
        querystring: Type.Object(
          { status: Type.Optional(Status), ...CURSOR_PAGE_QUERY },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            recurringPayouts: Type.Array(Type.Object(RECURRING_SUMMARY_FIELDS)),
            pagination: Type.Object(CURSOR_PAGINATION),
          }),
        },
      },
    },
    async (request) => {
      const { status, cursor, limit = DEFAULT_PAGE } = request.query;
      const conditions: SQL[] = [eq(recurringPayouts.accountId, accountIdOf(request))];
      if (status !== undefined) conditions.push(eq(recurringPayouts.status, status));
      if (cursor !== undefined) {
        conditions.push(
          olderThan(recurringPayouts.createdAt, recurringPayouts.id, decodeCursor(cursor)),
        );
      }
      const rows = await deps.db
        .select({ row: recurringPayouts, cursorAt: keysetAt(recurringPayouts.createdAt) })
        .from(recurringPayouts)
        .where(and(...conditions))
        .orderBy(desc(recurringPayouts.createdAt), desc(recurringPayouts.id))
        .limit(limit + 1);
      const { page, pagination } = keysetPage(rows, limit, ({ row, cursorAt }) => ({
        cursorAt,
        id: row.id,
      }));
      return { recurringPayouts: page.map(({ row }) => recurringSummary(deps, row)), pagination };
    },
  );
}
