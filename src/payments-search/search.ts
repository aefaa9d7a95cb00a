import {
  type AnyColumn,
  eq,
  gte,
  inArray,
  isNotNull,
  isNull,
  lte,
  type SQL,
  sql,
} from 'drizzle-orm';
import { parseDateTime } from '../base/dates.ts';
import { type FieldError, ValidationError } from '../base/errors.ts';
import { addressKey, parseAddress } from '../chains/address.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { type Database, queryRows } from '../db/client.ts';
import { plannedRows } from '../db/estimate.ts';
import { nextCursor } from '../db/keyset.ts';
import { payments, requests } from '../db/schema.ts';
import { pageStart } from '../http/pages.ts';
import type { CallerScope } from '../http/principal.ts';
import {
  excessByPayment,
  type PaymentBody,
  paymentBody,
  paymentsOfRequests,
} from '../payments/records.ts';
import { paymentSearchSql, type SearchConditions, TOTAL_COUNT_CAP } from './query.ts';

/**
 * `GET /v2/payments`: the account's recorded payments found by any combination of filters
 * (ANDed), newest first. Pages by `offset` (the reference's; at most MAX_OFFSET) or by our
 * opaque `cursor` (any depth, at the cost of the first page); `total` is exact up to
 * TOTAL_COUNT_CAP and estimated beyond.
 */

const DEFAULT_LIMIT = 20;

export const PAYMENT_TYPES = ['direct', 'conversion', 'crosschain', 'recurring'] as const;
type PaymentType = (typeof PAYMENT_TYPES)[number];

/** The query as the route receives it: strings, except the coerced page numbers. */
export interface SearchQuery {
  readonly txHash?: string | undefined;
  readonly walletAddress?: string | undefined;
  readonly paymentReference?: string | undefined;
  readonly requestId?: string | undefined;
  readonly reference?: string | undefined;
  readonly type?: PaymentType | undefined;
  readonly invoiceCurrency?: string | undefined;
  readonly paymentCurrency?: string | undefined;
  readonly fromDate?: string | undefined;
  readonly toDate?: string | undefined;
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
  readonly cursor?: string | undefined;
}

/** The search filters; `limit`, `offset` and `cursor` only page, so they are not among them. */
const FILTERS = [
  'txHash',
  'walletAddress',
  'paymentReference',
  'requestId',
  'reference',
  'type',
  'invoiceCurrency',
  'paymentCurrency',
  'fromDate',
  'toDate',
] as const satisfies readonly (keyof SearchQuery)[];

export const FILTER_REQUIRED_MESSAGE = `at least one search filter is required: ${FILTERS.join(', ')}`;
export const DATE_ORDER_MESSAGE = 'toDate must be after or equal to fromDate';
const DATE_MESSAGE = 'must be an ISO 8601 UTC date-time ending in Z, such as 2026-01-31T00:00:00Z';

const TX_HASH = /^0x[0-9a-f]{64}$/i;
const PAYMENT_REFERENCE = /^(?:0x)?[0-9a-f]{16}$/i;
export interface SearchResult {
  readonly payments: PaymentBody[];
  readonly pagination: {
    readonly total: number;
    readonly limit: number;
    readonly offset: number;
    readonly hasMore: boolean;
    /** Ours: the next page's `cursor`, or null on the last page. */
    readonly nextCursor: string | null;
    /** Ours: false when `total` is the planner's estimate (more than TOTAL_COUNT_CAP match). */
    readonly totalExact: boolean;
  };
}

/** The statements of one search, as the route runs them (the EXPLAIN test plans these). */
export function buildPaymentSearch(
  db: Database,
  chains: ChainRegistry,
  scope: CallerScope,
  query: SearchQuery,
) {
  const filters = filterConditions(chains, query);
  const { offset, after } = pageStart(query);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const conditions: SearchConditions = {
    payment: [
      eq(payments.accountId, scope.accountId),
      // A client ID sees the payments of the requests made with it.
      ...(scope.clientIdId === null ? [] : [eq(payments.clientIdId, scope.clientIdId)]),
      ...filters.payment,
    ],
    // Both sides carry the account (a payment is recorded against its request's), so the
    // request's (account, reference) index is entered by its first column.
    request:
      filters.request.length === 0
        ? []
        : [eq(requests.accountId, scope.accountId), ...filters.request],
    walletKey: filters.walletKey,
  };
  return { limit, offset, sql: paymentSearchSql(db, conditions, { limit, offset, after }) };
}

/** Throws ValidationError for a query without filters or with a malformed one. */
export async function searchPayments(
  db: Database,
  chains: ChainRegistry,
  scope: CallerScope,
  query: SearchQuery,
): Promise<SearchResult> {
  const { limit, offset, sql: statements } = buildPaymentSearch(db, chains, scope, query);
  const [rows, counted] = await Promise.all([
    statements.page,
    queryRows<{ n: number }>(db, statements.cappedCount),
  ]);
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const exact = Number(counted[0]?.n ?? 0);
  const totalExact = exact <= TOTAL_COUNT_CAP;
  // Past the cap the planner's estimate stands in, never below what is known to exist.
  const total = totalExact
    ? exact
    : Math.max(
        await plannedRows(db, statements.estimate),
        TOTAL_COUNT_CAP + 1,
        offset + page.length + (hasMore ? 1 : 0),
      );
  const excess = await excessOfPage(db, page);
  return {
    payments: page.map(({ payment, request }) =>
      paymentBody(chains, payment, request, excess.get(payment.id) ?? 0n),
    ),
    pagination: {
      total,
      limit,
      offset,
      hasMore,
      nextCursor: nextCursor(
        page.map((row) => ({ cursorAt: row.cursorAt, id: row.payment.id })),
        hasMore,
      ),
      totalExact,
    },
  };
}

interface FilterConditions {
  readonly payment: SQL[];
  readonly request: SQL[];
  walletKey?: string;
}

function filterConditions(chains: ChainRegistry, query: SearchQuery): FilterConditions {
  if (FILTERS.every((name) => query[name] === undefined)) {
    throw new ValidationError([{ field: 'querystring', message: FILTER_REQUIRED_MESSAGE }]);
  }
  const errors: FieldError[] = [];
  const found: FilterConditions = { payment: [], request: [] };

  if (query.txHash !== undefined) {
    // Tron transaction ids are the same 32 bytes, conventionally written without 0x: the
    // stored key has none, whichever chain the payment is on.
    if (TX_HASH.test(query.txHash))
      found.payment.push(eq(payments.txHashKey, query.txHash.slice(2).toLowerCase()));
    else errors.push({ field: 'txHash', message: 'must be 0x followed by 64 hex digits' });
  }

  if (query.walletAddress !== undefined) {
    // A search may name the zero address: it moves nothing, it only finds nothing.
    const wallet = parseAddress(query.walletAddress, { allowZero: true });
    if (wallet.ok) found.walletKey = addressKey(wallet);
    else errors.push({ field: 'walletAddress', message: wallet.message });
  }

  if (query.paymentReference !== undefined) {
    if (PAYMENT_REFERENCE.test(query.paymentReference)) {
      // A payment carries its request's reference (16 lower-case hex digits, no 0x).
      const bare = query.paymentReference.replace(/^0x/i, '').toLowerCase();
      found.payment.push(eq(payments.paymentReference, bare));
    } else {
      errors.push({
        field: 'paymentReference',
        message: 'must be 16 hex digits, with or without 0x',
      });
    }
  }

  if (query.requestId !== undefined)
    found.request.push(eq(requests.requestId, query.requestId.toLowerCase()));
  if (query.reference !== undefined) found.request.push(eq(requests.reference, query.reference));
  // A conversion pays a request written in another currency; a cross-chain payment arrived
  // through a bridge (its source network is recorded); direct is neither. Recurring
  // executions are valid and match nothing yet.
  if (query.type === 'direct') {
    found.payment.push(eq(payments.conversion, false), isNull(payments.sourceNetwork));
  } else if (query.type === 'conversion') {
    found.payment.push(eq(payments.conversion, true), isNull(payments.sourceNetwork));
  } else if (query.type === 'crosschain') found.payment.push(isNotNull(payments.sourceNetwork));
  else if (query.type !== undefined) found.payment.push(sql`false`);
  if (query.invoiceCurrency !== undefined)
    found.payment.push(
      currencyCondition(chains, payments.invoiceCurrencyKey, query.invoiceCurrency),
    );
  if (query.paymentCurrency !== undefined)
    found.payment.push(
      currencyCondition(chains, payments.paymentCurrencyKey, query.paymentCurrency),
    );

  const from = utcDate(query.fromDate, 'fromDate', errors);
  const to = utcDate(query.toDate, 'toDate', errors);
  if (from) found.payment.push(gte(payments.timestamp, from));
  if (to) found.payment.push(lte(payments.timestamp, to));
  if (from && to && to < from) errors.push({ field: 'toDate', message: DATE_ORDER_MESSAGE });

  if (errors.length > 0) throw new ValidationError(errors);
  return found;
}

/**
 * Requests store the registry's canonical id, and their payments its lower-case key; an alias
 * or another case resolves to it. An id the registry does not know may still name old rows, so
 * it is compared as (lower-case) text, not refused.
 */
function currencyCondition(chains: ChainRegistry, key: AnyColumn, id: string): SQL {
  const known = chains.currency(id);
  if (known) return eq(key, known.id.toLowerCase());
  // A symbol alone (`USDC`, as a payment's `currency` shows it) matches it on every network.
  const bySymbol = chains.currenciesWithSymbol(id).map((currency) => currency.id.toLowerCase());
  if (bySymbol.length > 0) return inArray(key, bySymbol);
  return eq(key, id.toLowerCase());
}

function utcDate(value: string | undefined, field: string, errors: FieldError[]): Date | null {
  if (value === undefined) return null;
  const date = parseDateTime(value, { utcOnly: true });
  if (date === null) errors.push({ field, message: DATE_MESSAGE });
  return date;
}

/**
 * What each payment of the page paid beyond what its request still owed: read from all the
 * payments of the page's requests (earlier ones may be on no page).
 */
export async function excessOfPage(
  db: Database,
  page: readonly {
    readonly request: { readonly id: string; readonly expectedAmount: bigint };
  }[],
): Promise<Map<string, bigint>> {
  const expected = new Map(page.map(({ request }) => [request.id, request.expectedAmount]));
  const byRequest = await paymentsOfRequests(db, [...expected.keys()]);
  const excess = new Map<string, bigint>();
  for (const [requestRowId, list] of byRequest) {
    for (const [id, amount] of excessByPayment(list, expected.get(requestRowId) ?? 0n))
      excess.set(id, amount);
  }
  return excess;
}
