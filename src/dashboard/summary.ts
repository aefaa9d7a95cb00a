import { and, eq, gt, gte, sql } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { type Database, queryRows } from '../db/client.ts';
import { paymentDailyTotals, securePayments } from '../db/schema.ts';
import { formatAmount } from '../payments/amounts.ts';

/**
 * The account at a glance, for the dashboard's Home: what it received and paid out per token
 * over the last days (from `payment_daily_totals`, kept by triggers on payments: a few rows a
 * day, never a scan of the payments), how many links await payment, and which webhook
 * endpoints are failing.
 */

const DAY_MS = 24 * 60 * 60_000;
/** Links awaiting payment are counted up to this; past it, "more". */
const MAX_COUNTED_LINKS = 1_000;
/** An endpoint is failing when one of its latest deliveries failed or waits for a retry. */
const LATEST_DELIVERIES = 20;

export const SUMMARY_DAYS = [7, 30, 90] as const;
export type SummaryDays = (typeof SUMMARY_DAYS)[number];

interface Totals {
  received: bigint;
  receivedPayments: number;
  paidOut: bigint;
  paidOutPayments: number;
}

/** The first UTC day of the `days` ending today. */
function firstDay(now: Date, days: number): string {
  return new Date(now.getTime() - (days - 1) * DAY_MS).toISOString().slice(0, 10);
}

export async function accountSummary(
  deps: { readonly db: Database; readonly clock: Clock; readonly chains: ChainRegistry },
  accountId: string,
  days: SummaryDays,
) {
  const now = deps.clock.now();
  const since = firstDay(now, days);
  const [rows, awaiting, failing] = await Promise.all([
    deps.db
      .select({
        day: paymentDailyTotals.day,
        currency: paymentDailyTotals.currency,
        flow: paymentDailyTotals.flow,
        amount: paymentDailyTotals.amount,
        payments: paymentDailyTotals.payments,
      })
      .from(paymentDailyTotals)
      .where(and(eq(paymentDailyTotals.accountId, accountId), gte(paymentDailyTotals.day, since)))
      .orderBy(paymentDailyTotals.day),
    deps.db
      .select({ one: sql<number>`1` })
      .from(securePayments)
      .where(
        and(
          eq(securePayments.accountId, accountId),
          eq(securePayments.status, 'pending'),
          gt(securePayments.expiresAt, now),
        ),
      )
      .limit(MAX_COUNTED_LINKS + 1),
    failingEndpoints(deps.db, accountId),
  ]);

  const decimals = (currency: string) => deps.chains.currency(currency)?.decimals ?? 0;
  const amount = (currency: string, value: bigint) => formatAmount(value, decimals(currency));
  const byCurrency = new Map<string, Totals>();
  const byDay = new Map<string, Map<string, Totals>>();
  const add = (totals: Totals, flow: string, value: bigint, payments: number) => {
    if (flow === 'out') {
      totals.paidOut += value;
      totals.paidOutPayments += payments;
    } else {
      totals.received += value;
      totals.receivedPayments += payments;
    }
  };
  const empty = (): Totals => ({
    received: 0n,
    receivedPayments: 0,
    paidOut: 0n,
    paidOutPayments: 0,
  });
  for (const row of rows) {
    // A day whose payments a reorganisation took back keeps its row, at zero.
    if (row.payments === 0) continue;
    const currency = byCurrency.get(row.currency) ?? empty();
    byCurrency.set(row.currency, currency);
    add(currency, row.flow, row.amount, row.payments);
    const day = byDay.get(row.day) ?? new Map<string, Totals>();
    byDay.set(row.day, day);
    const cell = day.get(row.currency) ?? empty();
    day.set(row.currency, cell);
    add(cell, row.flow, row.amount, row.payments);
  }
  return {
    days,
    since,
    currencies: [...byCurrency].map(([currency, totals]) => {
      const known = deps.chains.currency(currency);
      return {
        currency,
        symbol: known?.symbol ?? currency,
        network: known?.network ?? null,
        received: amount(currency, totals.received),
        receivedPayments: totals.receivedPayments,
        paidOut: amount(currency, totals.paidOut),
        paidOutPayments: totals.paidOutPayments,
      };
    }),
    daily: [...byDay].flatMap(([day, cells]) =>
      [...cells].map(([currency, totals]) => ({
        day,
        currency,
        received: amount(currency, totals.received),
        paidOut: amount(currency, totals.paidOut),
      })),
    ),
    linksAwaitingPayment: {
      count: Math.min(awaiting.length, MAX_COUNTED_LINKS),
      more: awaiting.length > MAX_COUNTED_LINKS,
    },
    failingEndpoints: failing,
  };
}

/**
 * The account's endpoints that are on and whose latest deliveries include a failed one or one
 * waiting to be tried again: one walk of each endpoint's (webhook_id, id) index.
 */
async function failingEndpoints(db: Database, accountId: string) {
  const rows = await queryRows<{
    id: string;
    url: string;
    failing: number;
    last_error: string | null;
  }>(
    db,
    sql`
    select w.id, w.url, f.failing::int as failing, f.last_error
    from webhooks w
    cross join lateral (
      select count(*) filter (where d.status = 'failed' or (d.status = 'pending' and d.attempts > 0))
               as failing,
             (array_agg(coalesce(d.last_error, 'answered ' || d.last_status_code) order by d.id desc)
               filter (where d.status <> 'delivered' and d.attempts > 0))[1] as last_error
      from (select status, attempts, last_error, last_status_code, id
            from webhook_deliveries
            where webhook_id = w.id
            order by id desc
            limit ${LATEST_DELIVERIES}) d
    ) f
    where w.account_id = ${accountId} and w.active and w.deleted_at is null and f.failing > 0
    order by w.created_at`,
  );
  return rows.map((row) => ({
    id: row.id,
    url: row.url,
    failing: row.failing,
    lastError: row.last_error,
  }));
}
