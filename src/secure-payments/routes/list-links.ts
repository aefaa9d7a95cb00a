import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import { parseDateTime } from '../../base/dates.ts';
import { ValidationError } from '../../base/errors.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { CURSOR_PAGE_QUERY, CURSOR_PAGINATION } from '../../http/pages.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { listLinks } from '../list.ts';
import { lookupLink } from '../lookup.ts';
import { LINK_TAGS } from '../schemas.ts';

const DEFAULT_PAGE = 20;

const ListQuery = Type.Object(
  {
    requestId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    payout: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
    status: Type.Optional(
      Type.Union([Type.Literal('pending'), Type.Literal('expired'), Type.Literal('completed')], {
        description:
          'Ours: pending (awaiting payment, not expired), expired, or completed links only',
      }),
    ),
    createdFrom: Type.Optional(Type.String({ maxLength: 64 })),
    createdTo: Type.Optional(Type.String({ maxLength: 64 })),
    ...CURSOR_PAGE_QUERY,
  },
  { additionalProperties: false },
);

const ListResponse = Type.Union([
  Type.Record(Type.String(), Type.Unknown(), {
    description: 'requestId alone: the link of that request',
  }),
  Type.Object({
    securePayments: Type.Array(Type.Record(Type.String(), Type.Unknown())),
    pagination: Type.Object(CURSOR_PAGINATION),
  }),
]);

function isoDate(value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = parseDateTime(value);
  if (date === null)
    throw new ValidationError([
      {
        field,
        message: 'must be an ISO 8601 date-time with a time zone, such as 2026-01-31T00:00:00Z',
      },
    ]);
  return date;
}

export function registerListLinks(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry; payUrl: string },
): void {
  app.get(
    '/v2/secure-payments',
    {
      // Server-side credentials only: a client ID may be a browser's, public by nature (the
      // reference API takes only a session here).
      config: { auth: ['apiKey', 'session'] },
      schema: {
        tags: LINK_TAGS,
        summary:
          'The link of one request (requestId alone: the reference’s lookup object, 404 if none), or a list of the account’s links, newest first',
        querystring: ListQuery,
        response: { 200: ListResponse },
      },
    },
    async (request) => {
      const q = request.query;
      const { requestId, ...others } = q;
      if (requestId !== undefined && Object.keys(others).length === 0) {
        return lookupLink(deps, deps.payUrl, accountIdOf(request), requestId);
      }
      return listLinks(deps.db, deps.clock, deps.payUrl, accountIdOf(request), {
        requestId: q.requestId,
        payout: q.payout === undefined ? undefined : q.payout === 'true',
        status: q.status,
        createdFrom: isoDate(q.createdFrom, 'createdFrom'),
        createdTo: isoDate(q.createdTo, 'createdTo'),
        cursor: q.cursor,
        limit: q.limit ?? DEFAULT_PAGE,
      });
    },
  );
}
