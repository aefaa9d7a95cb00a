import { type SQL, sql } from 'drizzle-orm';
import { requests, securePayments } from '../db/schema.ts';

/**
 * Which way a request's money goes for the account, as the export (`flow`) and the request list
 * (`securePaymentFlow`) tell them apart: `outgoing` are the requests of payout links (the
 * account pays); `incoming` all others (links to get paid, `POST /v2/request`, and
 * `POST /v2/payouts`' requests, which are recorded as any request is).
 */

export const REQUEST_FLOWS = ['incoming', 'outgoing'] as const;
export type RequestFlow = (typeof REQUEST_FLOWS)[number];

export const FLOW_DESCRIPTION =
  'incoming: requests to get paid; outgoing: the requests of payout links';

/**
 * Whether the row's link is a payout link (null: the request has no link), for a statement that
 * reads `requests`. A scalar subquery, looked up by the link's key row by row: a join (or an
 * EXISTS, which the planner turns into one) would let it hash both tables whole before the
 * first row, where this keeps the walk of the requests' (created, id) index that stops at the
 * page (test/e2e/list-plans.test.ts plans both statements that use it).
 */
export const linkIsPayout = sql<
  boolean | null
>`(select ${securePayments.payout} from ${securePayments} where ${securePayments.id} = ${requests.securePaymentId})`;

/** The flow of a request whose `linkIsPayout` reads `payout`. */
export function flowOf(payout: boolean | null): RequestFlow {
  return payout === true ? 'outgoing' : 'incoming';
}

/** The condition on `requests` that keeps the requests of `flow`. */
export function inFlow(flow: RequestFlow): SQL {
  return flow === 'outgoing' ? sql`${linkIsPayout} is true` : sql`${linkIsPayout} is not true`;
}
