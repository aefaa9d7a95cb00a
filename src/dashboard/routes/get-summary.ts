import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { accountSummary, SUMMARY_DAYS } from '../summary.ts';

const Amount = Type.String({ description: 'In the token, its decimals (fee excluded)' });

const Summary = Type.Object({
  days: Type.Integer(),
  since: Type.String({ format: 'date', description: 'The first UTC day counted' }),
  currencies: Type.Array(
    Type.Object({
      currency: Type.String({ description: 'The payments’ currency id (USDC-base)' }),
      symbol: Type.String(),
      network: Type.Union([Type.String(), Type.Null()]),
      received: Amount,
      receivedPayments: Type.Integer(),
      paidOut: Amount,
      paidOutPayments: Type.Integer(),
    }),
  ),
  daily: Type.Array(
    Type.Object({
      day: Type.String({ format: 'date' }),
      currency: Type.String(),
      received: Amount,
      paidOut: Amount,
    }),
    { description: 'Per UTC day and currency, days without payments left out, oldest first' },
  ),
  linksAwaitingPayment: Type.Object({
    count: Type.Integer(),
    more: Type.Boolean({ description: 'More than count (counted up to 1,000)' }),
  }),
  failingEndpoints: Type.Array(
    Type.Object({
      id: Type.String(),
      url: Type.String(),
      failing: Type.Integer({
        description: 'Among its latest 20 deliveries, those failed or waiting for a retry',
      }),
      lastError: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

/**
 * Ours, for the dashboard's Home: what the account received and paid out per token over the
 * last 7, 30 or 90 days (paid out: payouts, payout links, recurring payouts), links awaiting
 * payment, failing webhook endpoints.
 */
export function registerGetSummary(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry },
): void {
  app.get(
    '/v2/dashboard/summary',
    {
      config: { auth: ['apiKey', 'session'] },
      schema: {
        tags: ['V2/Dashboard'],
        summary: 'Ours: the account at a glance, over the last 7, 30 or 90 days',
        querystring: Type.Object(
          {
            days: Type.Optional(
              Type.Union(
                SUMMARY_DAYS.map((days) => Type.Literal(String(days))),
                { description: '7, 30 (the default) or 90' },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Summary },
      },
    },
    async (request) => {
      const days = Number(request.query.days ?? '30') as (typeof SUMMARY_DAYS)[number];
      return accountSummary(deps, accountIdOf(request), days);
    },
  );
}
