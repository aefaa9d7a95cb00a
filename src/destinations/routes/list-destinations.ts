import { and, desc, eq, type SQL } from 'drizzle-orm';
import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import { decodeCursor, keysetAt, keysetPage, olderThan } from '../../db/keyset.ts';
import { payeeDestinations } from '../../db/schema.ts';
import { CURSOR_PAGE_QUERY, CURSOR_PAGINATION } from '../../http/pages.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { destinationBody } from '../destination-body.ts';
import { DestinationRef } from '../schemas.ts';

const DEFAULT_PAGE = 50;

const ListQuery = Type.Object(
  {
    active: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
    ...CURSOR_PAGE_QUERY,
  },
  { additionalProperties: false },
);

/**
 * Ours, for the dashboard: the account's destinations, newest first, page by page. The
 * reference reads one at a time (by id, or a wallet's active one); a merchant choosing where a
 * link pays needs them all.
 */
export function registerListDestinations(app: App, deps: { db: Database }): void {
  app.get(
    '/v2/dashboard/destinations',
    {
      config: { auth: ['apiKey', 'session'] },
      schema: {
        tags: ['V2/Dashboard'],
        summary: 'Ours: the account’s payee destinations, newest first (active=true: usable ones)',
        querystring: ListQuery,
        response: {
          200: Type.Object({
            destinations: Type.Array(DestinationRef),
            pagination: Type.Object(CURSOR_PAGINATION),
          }),
        },
      },
    },
    async (request) => {
      const { active, cursor, limit = DEFAULT_PAGE } = request.query;
      const conditions: SQL[] = [eq(payeeDestinations.accountId, accountIdOf(request))];
      if (active !== undefined) conditions.push(eq(payeeDestinations.active, active === 'true'));
      if (cursor !== undefined) {
        conditions.push(
          olderThan(payeeDestinations.createdAt, payeeDestinations.id, decodeCursor(cursor)),
        );
      }
      const rows = await deps.db
        .select({ row: payeeDestinations, cursorAt: keysetAt(payeeDestinations.createdAt) })
        .from(payeeDestinations)
        .where(and(...conditions))
        .orderBy(desc(payeeDestinations.createdAt), desc(payeeDestinations.id))
        .limit(limit + 1);
      const { page, pagination } = keysetPage(rows, limit, ({ row, cursorAt }) => ({
        cursorAt,
        id: row.id,
      }));
      return { destinations: page.map(({ row }) => destinationBody(row)), pagination };
    },
  );
}
