import {
  type AnyColumn,
  and,
  count,
  desc,
  eq,
  gte,
  inArray,
  lte,
  ne,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import { type ParsedAddress, parseAddress } from '../chains/address.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { parseDateTime } from '../dates.ts';
import type { Database } from '../db/client.ts';
import { payments, requests } from '../db/schema.ts';
import { type FieldError, ValidationError } from '../errors.ts';
import type { CallerScope } from '../http/principal.ts';
import { type PaymentBody, paymentBody } from '../payments/records.ts';

/**
 * `GET /v2/payments`: the account's recorded payments found by any combination of filters
 * (ANDed), newest first, with offset pagination and the total count.
 */

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export const PAYMENT_TYPES = ['direct', 'conversion', 'crosschain', 'recurring'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

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
}

/** The search filters; `limit` and `offset` only page, so they are not among them. */
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
/** Seconds required, fraction optional; the offset must be `Z` so nobody's local time sneaks in. */

export interface SearchResult {
  readonly payments: PaymentBody[];
  readonly pagination: {
    readonly total: number;
    readonly limit: number;
    readonly offset: number;
    readonly hasMore: boolean;
  };
}

/** Throws ValidationError for a query without filters or with a malformed one. */
export async function searchPayments(
  db: Database,
  chains: ChainRegistry,
  scope: CallerScope,
  query: SearchQuery,
): Promise<SearchResult> {
  const where = and(
    // Both sides carry the account: a payment is only ever recorded against its request's.
    eq(payments.accountId, scope.accountId),
    eq(requests.accountId, scope.accountId),
    ...(scope.clientIdId === null ? [] : [eq(requests.clientIdId, scope.clientIdId)]),
    ...filterConditions(chains, query),
  );
  const limit = query.limit ?? DEFAULT_LIMIT;
  const offset = query.offset ?? 0;
  const [rows, totals] = await Promise.all([
    db
      .select({ payment: payments, request: requests })
      .from(payments)
      .innerJoin(requests, eq(requests.id, payments.requestRowId))
      .where(where)
      .orderBy(desc(payments.timestamp), desc(payments.id))
      .limit(limit)
      .offset(offset),
    db
      .select({ total: count() })
      .from(payments)
      .innerJoin(requests, eq(requests.id, payments.requestRowId))
      .where(where),
  ]);
  const total = totals[0]?.total ?? 0;
  return {
    payments: rows.map(({ payment, request }) => paymentBody(chains, payment, request)),
    pagination: { total, limit, offset, hasMore: offset + rows.length < total },
  };
}

function filterConditions(chains: ChainRegistry, query: SearchQuery): SQL[] {
  if (FILTERS.every((name) => query[name] === undefined)) {
    throw new ValidationError([{ field: 'querystring', message: FILTER_REQUIRED_MESSAGE }]);
  }
  const errors: FieldError[] = [];
  const conditions: SQL[] = [];

  if (query.txHash !== undefined) {
    if (TX_HASH.test(query.txHash)) {
      const hash = query.txHash.toLowerCase();
      // Tron transaction ids are the same 32 bytes, conventionally written without 0x.
      conditions.push(inArray(sql`lower(${payments.txHash})`, [hash, hash.slice(2)]));
    } else {
      errors.push({ field: 'txHash', message: 'must be 0x followed by 64 hex digits' });
    }
  }

  if (query.walletAddress !== undefined) {
    // A search may name the zero address: it moves nothing, it only finds nothing.
    const wallet = parseAddress(query.walletAddress, { allowZero: true });
    if (wallet.ok) conditions.push(walletCondition(wallet));
    else errors.push({ field: 'walletAddress', message: wallet.message });
  }

  if (query.paymentReference !== undefined) {
    if (PAYMENT_REFERENCE.test(query.paymentReference)) {
      const bare = query.paymentReference.replace(/^0x/i, '').toLowerCase();
      conditions.push(eq(requests.paymentReference, bare));
    } else {
      errors.push({
        field: 'paymentReference',
        message: 'must be 16 hex digits, with or without 0x',
      });
    }
  }

  if (query.requestId !== undefined)
    conditions.push(eq(requests.requestId, query.requestId.toLowerCase()));
  if (query.reference !== undefined) conditions.push(eq(requests.reference, query.reference));
  // Direct and conversion payments are recorded so far (a conversion pays a request written
  // in another currency); the other kinds are valid and match nothing.
  if (query.type === 'direct')
    conditions.push(eq(requests.invoiceCurrency, requests.paymentCurrency));
  else if (query.type === 'conversion')
    conditions.push(ne(requests.invoiceCurrency, requests.paymentCurrency));
  else if (query.type !== undefined) conditions.push(sql`false`);
  if (query.invoiceCurrency !== undefined)
    conditions.push(currencyCondition(chains, requests.invoiceCurrency, query.invoiceCurrency));
  if (query.paymentCurrency !== undefined)
    conditions.push(currencyCondition(chains, requests.paymentCurrency, query.paymentCurrency));

  const from = utcDate(query.fromDate, 'fromDate', errors);
  const to = utcDate(query.toDate, 'toDate', errors);
  if (from) conditions.push(gte(payments.timestamp, from));
  if (to) conditions.push(lte(payments.timestamp, to));
  if (from && to && to < from) errors.push({ field: 'toDate', message: DATE_ORDER_MESSAGE });

  if (errors.length > 0) throw new ValidationError(errors);
  return conditions;
}

/** Payer (sender or connected wallet) or payee. EVM addresses in any case; Tron's are exact. */
function walletCondition(wallet: ParsedAddress): SQL {
  if (wallet.kind === 'tron') {
    return or(
      eq(payments.payee, wallet.address),
      eq(payments.payerAddress, wallet.address),
      eq(payments.payerEoaAddress, wallet.address),
    ) as SQL;
  }
  const lower = wallet.address.toLowerCase();
  return or(
    sql`lower(${payments.payee}) = ${lower}`,
    sql`lower(${payments.payerAddress}) = ${lower}`,
    sql`lower(${payments.payerEoaAddress}) = ${lower}`,
  ) as SQL;
}

/**
 * Requests store the registry's canonical id; an alias or another case resolves to it. An id
 * the registry does not know may still name old rows, so it is compared as text, not refused.
 */
function currencyCondition(chains: ChainRegistry, column: AnyColumn, id: string): SQL {
  const known = chains.currency(id);
  if (known) return sql`lower(${column}) = ${known.id.toLowerCase()}`;
  // A symbol alone (`USDC`, as a payment's `currency` shows it) matches it on every network.
  const bySymbol = chains.currencies
    .filter((currency) => currency.symbol.toLowerCase() === id.toLowerCase())
    .map((currency) => currency.id.toLowerCase());
  if (bySymbol.length > 0) return inArray(sql`lower(${column})`, bySymbol);
  return sql`lower(${column}) = ${id.toLowerCase()}`;
}

function utcDate(value: string | undefined, field: string, errors: FieldError[]): Date | null {
  if (value === undefined) return null;
  const date = parseDateTime(value, { utcOnly: true });
  if (date === null) errors.push({ field, message: DATE_MESSAGE });
  return date;
}
