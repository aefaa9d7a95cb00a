import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Currency } from '../chains/currencies.ts';
import type { Network } from '../chains/networks.ts';
import type { Database } from '../db/client.ts';
import { type KeysetPosition, keysetAt, olderThan } from '../db/keyset.ts';
import { requests } from '../db/schema.ts';
import type { CallerScope } from '../http/principal.ts';
import {
  mintRequestId,
  mintSalt,
  paymentReference,
  referenceTopic,
} from '../payments/references.ts';
import { inFlow, type RequestFlow } from './flows.ts';

export type RequestRow = typeof requests.$inferSelect;

export interface NewRequest {
  readonly accountId: string;
  readonly clientIdId: string | null;
  readonly securePaymentId?: string | null;
  readonly position?: number | null;
  readonly network: Network;
  readonly invoiceCurrency: Currency;
  readonly paymentCurrency: Currency;
  readonly expectedAmount: bigint;
  /** The fee plan's payee-borne fees, which its payee's leg is paid without. */
  readonly payeeBorneFees?: bigint;
  readonly payee: string;
  readonly payer?: string | null;
  readonly destinationRowId?: string | null;
  readonly reference?: string | null;
  readonly customerInfo?: Record<string, unknown> | null;
  /** The browser origin a client ID made the request from. */
  readonly origin?: string | null;
  /** Occurrences of a recurring request: the original's id and reference (no 0x). */
  readonly originalRequestId?: string | null;
  readonly originalRequestPaymentReference?: string | null;
  /** The index of an occurrence the schedule generated. */
  readonly occurrence?: number | null;
  /** `isCryptoToFiatAvailable`: it may be paid to fiat through the off-ramp. */
  readonly cryptoToFiat?: boolean;
  /** Money the account pays out (payouts, payout links, recurring payouts). */
  readonly payout?: boolean;
}

/**
 * Inserts requests with fresh ids, salts and payment references. References are 64 random-ish
 * bits; the unique index on (network, keccak256 of the reference) turns a collision into a
 * failed insert rather than two requests sharing payments.
 */
export async function insertRequests(
  db: Database,
  items: readonly NewRequest[],
): Promise<RequestRow[]> {
  if (items.length === 0) return [];
  return db.insert(requests).values(items.map(requestValues)).returning();
}

/**
 * Runs `then` over requests just written by `insertRequests`, and deletes them if it throws: an
 * answer that is not a success leaves nothing behind for a retry to duplicate. Nothing refers to
 * a request this new (its payments come from a chain that has not seen its reference).
 */
export async function unlessFailing<T>(
  db: Database,
  written: readonly RequestRow[],
  then: () => Promise<T>,
): Promise<T> {
  try {
    return await then();
  } catch (error) {
    const ids = written.map((row) => row.id);
    // The first failure is the answer; one that also keeps the delete from running (the
    // database gone) leaves the requests, as a crash at this point would.
    if (ids.length > 0)
      await db
        .delete(requests)
        .where(inArray(requests.id, ids))
        .catch(() => {});
    throw error;
  }
}

/**
 * The row of a new request: a fresh id, salt and payment reference (for `insertRequests`, or a
 * statement that writes requests along with something else).
 */
export function requestValues(item: NewRequest) {
  const requestId = mintRequestId();
  const salt = mintSalt();
  const reference = paymentReference(requestId, salt, item.payee);
  return {
    requestId,
    accountId: item.accountId,
    clientIdId: item.clientIdId,
    securePaymentId: item.securePaymentId ?? null,
    position: item.position ?? null,
    network: item.network.id,
    invoiceCurrency: item.invoiceCurrency.id,
    paymentCurrency: item.paymentCurrency.id,
    expectedAmount: item.expectedAmount,
    payeeBorneFees: item.payeeBorneFees ?? 0n,
    payee: item.payee,
    payer: item.payer ?? null,
    destinationId: item.destinationRowId ?? null,
    reference: item.reference ?? null,
    customerInfo: item.customerInfo ?? null,
    origin: item.origin ?? null,
    salt,
    paymentReference: reference,
    referenceTopic: referenceTopic(reference),
    originalRequestId: item.originalRequestId ?? null,
    originalRequestPaymentReference: item.originalRequestPaymentReference ?? null,
    occurrence: item.occurrence ?? null,
    cryptoToFiat: item.cryptoToFiat ?? false,
    payout: item.payout ?? false,
  } satisfies typeof requests.$inferInsert;
}

export async function findRequest(
  db: Database,
  accountId: string,
  requestId: string,
): Promise<RequestRow | null> {
  const [row] = await db
    .select()
    .from(requests)
    .where(and(eq(requests.accountId, accountId), eq(requests.requestId, requestId.toLowerCase())));
  return row ?? null;
}

/** The account's requests among `requestIds` (lower-case ids), in no particular order. */
export async function findRequests(
  db: Database,
  accountId: string,
  requestIds: readonly string[],
): Promise<RequestRow[]> {
  if (requestIds.length === 0) return [];
  return db
    .select()
    .from(requests)
    .where(and(eq(requests.accountId, accountId), inArray(requests.requestId, [...requestIds])));
}

export async function requestsOfLinks(
  db: Database,
  securePaymentIds: readonly string[],
): Promise<RequestRow[]> {
  if (securePaymentIds.length === 0) return [];
  return db
    .select()
    .from(requests)
    .where(inArray(requests.securePaymentId, [...securePaymentIds]))
    .orderBy(requests.position);
}

export interface RequestListFilter {
  /** The payee's canonical key (`addressKey`). */
  readonly payeeKey?: string | undefined;
  /** Only the requests of one flow (`flows.ts`). */
  readonly flow?: RequestFlow | undefined;
  readonly limit: number;
  readonly offset: number;
  readonly after?: KeysetPosition | undefined;
}

/**
 * `GET /v2/request`'s statement, newest first (id breaking ties): one walk of the account's,
 * the client ID's or the payee's (created_at, id) index. Exported so the EXPLAIN test plans
 * the statement the route runs.
 */
export function requestListQuery(db: Database, scope: CallerScope, filter: RequestListFilter) {
  // A client ID belongs to one account: its own index needs no account column.
  const conditions = [eq(requests.accountId, scope.accountId)];
  if (scope.clientIdId !== null) conditions.push(eq(requests.clientIdId, scope.clientIdId));
  if (filter.payeeKey !== undefined) conditions.push(eq(requests.payeeKey, filter.payeeKey));
  // Checked on each row the walk reads, by the link's key: the walk stays in the list's order.
  if (filter.flow !== undefined) conditions.push(inFlow(filter.flow));
  if (filter.after) conditions.push(olderThan(requests.createdAt, requests.id, filter.after));
  return db
    .select({ request: requests, cursorAt: keysetAt(requests.createdAt) })
    .from(requests)
    .where(and(...conditions))
    .orderBy(desc(requests.createdAt), desc(requests.id))
    .limit(filter.limit)
    .offset(filter.offset);
}
