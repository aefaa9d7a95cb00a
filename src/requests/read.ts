import { AppError } from '../base/errors.ts';
import { addressKey, parseAddress } from '../chains/address.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { nextCursor } from '../db/keyset.ts';
import { type FeeLegView, feeLegViewsOf } from '../fees/legs.ts';
import { pageStart } from '../http/pages.ts';
import type { CallerScope } from '../http/principal.ts';
import { paymentsOfRequests } from '../payments/records.ts';
import type { RequestFlow } from './flows.ts';
import { seriesOf } from './recurring.ts';
import { findRequest, type RequestRow, requestListQuery } from './requests.ts';
import { requestStatusBody } from './status.ts';

/** What `/v2/request` reads back: one request, its status, a page of the caller's. */

const DEFAULT_PAGE = 20;

export interface StatusDeps {
  readonly db: Database;
  readonly chains: ChainRegistry;
}

/** The account's request `requestId`; `request_not_found` otherwise. */
export async function ownRequest(
  db: Database,
  accountId: string,
  requestId: string,
): Promise<RequestRow> {
  const row = await findRequest(db, accountId, requestId);
  if (!row) throw new AppError('request_not_found', 'Request not found');
  return row;
}

/** The fee legs of the requests that belong to links (only those can carry a fee plan). */
function linkFeeLegs(
  deps: StatusDeps,
  rows: readonly RequestRow[],
): Promise<Map<string, FeeLegView[]>> {
  const ids = rows.flatMap((row) => (row.securePaymentId === null ? [] : [row.id]));
  return ids.length === 0
    ? Promise.resolve(new Map<string, FeeLegView[]>())
    : feeLegViewsOf(deps.db, deps.chains, ids);
}

/** A request's status body, with its payments and the series it belongs to. */
export async function requestStatus(deps: StatusDeps, row: RequestRow) {
  const [payments, series, feeLegs] = await Promise.all([
    paymentsOfRequests(deps.db, [row.id]),
    seriesOf(deps.db, row.accountId, [row]),
    linkFeeLegs(deps, [row]),
  ]);
  return requestStatusBody(
    deps.chains,
    row,
    payments.get(row.id) ?? [],
    series.get(row.requestId) ?? null,
    feeLegs.get(row.id),
  );
}

export interface RequestListInput {
  readonly walletAddress?: string | undefined;
  readonly securePaymentFlow?: RequestFlow | undefined;
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
  readonly cursor?: string | undefined;
}

/** `GET /v2/request`: a page of the caller's requests, newest first, each with its status. */
export async function listRequests(deps: StatusDeps, scope: CallerScope, query: RequestListInput) {
  const limit = query.limit ?? DEFAULT_PAGE;
  const { offset, after } = pageStart(query);
  const wallet =
    query.walletAddress === undefined
      ? undefined
      : parseAddress(query.walletAddress, { allowZero: true });
  const rows = await requestListQuery(deps.db, scope, {
    // A query that is no address matches nothing (no key is ever that text).
    payeeKey:
      wallet === undefined ? undefined : wallet.ok ? addressKey(wallet) : query.walletAddress,
    flow: query.securePaymentFlow,
    limit: limit + 1,
    offset,
    after,
  });
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const [payments, series, feeLegs] = await Promise.all([
    paymentsOfRequests(
      deps.db,
      page.map((row) => row.request.id),
    ),
    seriesOf(
      deps.db,
      scope.accountId,
      page.map((row) => row.request),
    ),
    linkFeeLegs(
      deps,
      page.map((row) => row.request),
    ),
  ]);
  return {
    requests: page.map(({ request: row }) =>
      requestStatusBody(
        deps.chains,
        row,
        payments.get(row.id) ?? [],
        series.get(row.requestId) ?? null,
        feeLegs.get(row.id),
      ),
    ),
    pagination: {
      limit,
      offset,
      hasMore,
      nextCursor: nextCursor(
        page.map((row) => ({ cursorAt: row.cursorAt, id: row.request.id })),
        hasMore,
      ),
    },
  };
}
