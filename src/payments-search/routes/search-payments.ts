import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { PAGE_QUERY, PAGINATION } from '../../http/pages.ts';
import { scopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { PAYMENT_SCHEMA_ID } from '../../payments/records.ts';
import { TOTAL_COUNT_CAP } from '../query.ts';
import { PAYMENT_TYPES, searchPayments } from '../search.ts';

const AUTH = ['apiKey', 'clientId', 'session'] as const;
const TAGS = ['V2/Payments'];

/** The search's filters, as `GET /v2/dashboard/payments/export` takes them too. */
export const PAYMENT_FILTERS = {
  txHash: Type.Optional(
    Type.String({ description: '0x + 64 hex digits; every payment of the transaction' }),
  ),
  walletAddress: Type.Optional(
    Type.String({ description: 'Payer or payee: an EVM address in any case, or a Tron one' }),
  ),
  paymentReference: Type.Optional(
    Type.String({ description: '16 hex digits, with or without 0x' }),
  ),
  requestId: Type.Optional(Type.String({ minLength: 1 })),
  reference: Type.Optional(
    Type.String({ minLength: 1, description: "The request's merchant reference" }),
  ),
  type: Type.Optional(Type.Enum([...PAYMENT_TYPES])),
  invoiceCurrency: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'A currency id, or a symbol for that token on every network',
    }),
  ),
  paymentCurrency: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'A currency id, or a symbol for that token on every network',
    }),
  ),
  fromDate: Type.Optional(
    Type.String({ description: 'ISO 8601 UTC ending in Z, inclusive (2026-01-31T00:00:00Z)' }),
  ),
  toDate: Type.Optional(
    Type.String({ description: 'ISO 8601 UTC ending in Z, inclusive, not before fromDate' }),
  ),
};

const Query = Type.Object({ ...PAYMENT_FILTERS, ...PAGE_QUERY }, { additionalProperties: false });

/** `deps` is read on each request, not captured at registration. */
export function registerSearchPayments(
  app: App,
  deps: { db: Database; chains: ChainRegistry },
): void {
  app.get(
    '/v2/payments',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary:
          'Search the account’s payments (a client ID’s: those of its requests), newest first; at least one filter, filters are ANDed',
        querystring: Query,
        response: {
          200: Type.Object({
            payments: Type.Array(Type.Ref(PAYMENT_SCHEMA_ID)),
            pagination: Type.Object({
              total: Type.Integer({
                description: `Exact up to ${TOTAL_COUNT_CAP}; beyond, the database's estimate (totalExact false)`,
              }),
              ...PAGINATION,
              totalExact: Type.Boolean({
                description: `Ours: false when more than ${TOTAL_COUNT_CAP} payments match and total is an estimate`,
              }),
            }),
          }),
        },
      },
    },
    async (request) => searchPayments(deps.db, deps.chains, scopeOf(request), request.query),
  );
}
