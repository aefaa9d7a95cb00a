import { and, desc, eq, gte, inArray, lt, lte, or, type SQL } from 'drizzle-orm';
import { isNative } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/client.ts';
import { payeeDestinations, requests, securePayments } from '../db/schema.ts';
import { NATIVE_TOKEN_ADDRESS } from '../destinations/destination-id.ts';
import { AppError } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { formatAmount } from '../payments/amounts.ts';
import type { PaymentLeg } from '../payments/transactions.ts';
import { amountDue, requestLeg } from '../requests/legs.ts';
import { type RequestRow, requestsOfLinks } from '../requests/requests.ts';
import { DEFAULT_REDIRECT_LABEL, securePaymentUrl } from './create.ts';

export type LinkRow = typeof securePayments.$inferSelect;
export type LinkStatus = LinkRow['status'];

export interface Link {
  readonly row: LinkRow;
  /** Stored status, with `pending` past its expiry read as `expired`. */
  readonly status: LinkStatus;
  readonly requests: readonly RequestRow[];
}

/** The page's look when neither the client ID nor an orchestrator brands it (api-facts §11.4). */
export const DEFAULT_BRANDING = {
  id: null,
  clientIdId: null,
  orchestratorId: null,
  logoPath: null,
  pageBackgroundColor: '#f3f4f6',
  cardBackgroundColor: '#ffffff',
  primaryActionColor: '#00d395',
  primaryTextColor: '#475569',
  secondaryTextColor: '#94a3b8',
  termsPath: null,
  privacyPath: null,
  displayRequestBranding: true,
} as const;

export function effectiveStatus(row: LinkRow, now: Date): LinkStatus {
  return row.status === 'pending' && row.expiresAt <= now ? 'expired' : row.status;
}

/** A link of the caller's account; another account's link is as unknown as a missing one. */
export async function loadLink(
  db: Database,
  clock: Clock,
  accountId: string,
  token: string,
): Promise<Link> {
  const [row] = await db
    .select()
    .from(securePayments)
    .where(
      and(eq(securePayments.token, token.toUpperCase()), eq(securePayments.accountId, accountId)),
    );
  if (!row) throw new AppError('secure_payment_not_found', 'Secure payment not found');
  return {
    row,
    status: effectiveStatus(row, clock.now()),
    requests: await requestsOfLinks(db, [row.id]),
  };
}

/**
 * Only pending links can be shown for payment or paid: completed ones answer 409 with each
 * request's state (the reference API's body, inside our envelope), the others 403.
 */
export function assertPayable(link: Link): void {
  switch (link.status) {
    case 'pending':
      return;
    case 'completed':
      throw completedError(link);
    case 'expired':
      throw new AppError('secure_payment_expired', 'Secure payment has expired');
    case 'invalidated':
      throw new AppError('secure_payment_invalidated', 'Secure payment is no longer valid');
    case 'compliance_failed':
      throw new AppError(
        'secure_payment_compliance_failed',
        'Secure payment was blocked by compliance screening',
      );
  }
}

/** 409 with each request's state (the reference API's body, inside our envelope). */
export function completedError(link: Link): AppError {
  return new AppError('secure_payment_completed', 'Secure payment has already been completed', {
    details: {
      status: 'completed',
      branding: DEFAULT_BRANDING,
      requestStatuses: link.requests.map((r) => ({
        requestId: r.requestId,
        hasBeenPaid: r.status === 'paid',
        txHash: null,
      })),
    },
  });
}

/**
 * The legs still to pay: what each request of the link still wants, in its payment currency,
 * to its payee. A request paid in full (one of a batch, say) has no leg.
 */
export function linkLegs(chains: ChainRegistry, link: Link): PaymentLeg[] {
  return link.requests.flatMap((request) => {
    const due = amountDue(request);
    return due > 0n ? [requestLeg(chains, request, due)] : [];
  });
}

/** Public ids of the destinations the link's requests pay, by destination row id. */
export async function destinationIdsOf(
  db: Database,
  link: Link,
): Promise<ReadonlyMap<string, string>> {
  const rowIds = [
    ...new Set(link.requests.flatMap((r) => (r.destinationId === null ? [] : [r.destinationId]))),
  ];
  if (rowIds.length === 0) return new Map();
  const rows = await db
    .select({ id: payeeDestinations.id, destinationId: payeeDestinations.destinationId })
    .from(payeeDestinations)
    .where(inArray(payeeDestinations.id, rowIds));
  return new Map(rows.map((row) => [row.id, row.destinationId]));
}

/** Display data (`GET /v2/secure-payments/{token}`): the single or the batch shape. */
export function displayBody(
  chains: ChainRegistry,
  link: Link,
  destinationIds: ReadonlyMap<string, string> = new Map(),
) {
  const parts = link.requests.map((request) => {
    const currency = chains.currency(request.paymentCurrency);
    const decimals = currency?.decimals ?? 0;
    return {
      requestId: request.requestId,
      payee: request.payee,
      amount: formatAmount(request.expectedAmount, decimals),
      paymentCurrency: request.paymentCurrency,
      isNativeCurrency: currency ? isNative(currency) : false,
      destination: {
        // Not masked, so the destination is named (api-facts §2.6).
        destinationId:
          request.destinationId === null
            ? null
            : (destinationIds.get(request.destinationId) ?? null),
        payeeAddress: request.payee,
        // Natives are named by the sentinel address, as in destination ids.
        tokenAddress: currency
          ? isNative(currency)
            ? NATIVE_TOKEN_ADDRESS
            : currency.address
          : null,
        walletAddress: request.payee,
        network: request.network,
        isMasked: false,
      },
    };
  });
  const common = {
    status: link.status,
    token: link.row.token,
    redirectUrl: link.row.redirectUrl,
    redirectLabel: link.row.redirectLabel ?? DEFAULT_REDIRECT_LABEL,
    branding: DEFAULT_BRANDING,
    requestIds: parts.map((p) => p.requestId),
    network: link.row.network,
    reference: link.row.reference,
    feePlan: null,
    expiresAt: link.row.expiresAt.toISOString(),
  };
  const [only] = parts;
  if (only && parts.length === 1) {
    return {
      paymentType: 'single' as const,
      ...common,
      payee: only.payee,
      amount: only.amount,
      paymentCurrency: only.paymentCurrency,
      isNativeCurrency: only.isNativeCurrency,
      destination: only.destination,
    };
  }
  return {
    paymentType: 'batch' as const,
    ...common,
    payees: parts.map((p) => p.payee),
    amounts: parts.map((p) => p.amount),
    paymentCurrencies: parts.map((p) => p.paymentCurrency),
    isNativeCurrency: parts.map((p) => p.isNativeCurrency),
    destinations: parts.map((p) => p.destination),
  };
}

export interface ListFilter {
  readonly requestId?: string | undefined;
  readonly payout?: boolean | undefined;
  readonly createdFrom?: Date | undefined;
  readonly createdTo?: Date | undefined;
  readonly cursor?: string | undefined;
  readonly limit: number;
}

/** Newest first; the cursor is the last item's (createdAt, id), so pages never overlap or skip. */
export async function listLinks(
  db: Database,
  clock: Clock,
  payUrl: string,
  accountId: string,
  filter: ListFilter,
) {
  const conditions: SQL[] = [eq(securePayments.accountId, accountId)];
  if (filter.payout !== undefined) conditions.push(eq(securePayments.payout, filter.payout));
  if (filter.createdFrom) conditions.push(gte(securePayments.createdAt, filter.createdFrom));
  if (filter.createdTo) conditions.push(lte(securePayments.createdAt, filter.createdTo));
  if (filter.requestId !== undefined) {
    const [match] = await db
      .select({ id: requests.securePaymentId })
      .from(requests)
      .where(
        and(
          eq(requests.accountId, accountId),
          eq(requests.requestId, filter.requestId.toLowerCase()),
        ),
      );
    if (!match?.id)
      return {
        securePayments: [],
        pagination: { limit: filter.limit, nextCursor: null, hasMore: false },
      };
    conditions.push(eq(securePayments.id, match.id));
  }
  if (filter.cursor !== undefined) {
    const after = decodeCursor(filter.cursor);
    conditions.push(
      or(
        lt(securePayments.createdAt, after.createdAt),
        and(eq(securePayments.createdAt, after.createdAt), lt(securePayments.id, after.id)),
      ) as SQL,
    );
  }
  const rows = await db
    .select()
    .from(securePayments)
    .where(and(...conditions))
    .orderBy(desc(securePayments.createdAt), desc(securePayments.id))
    .limit(filter.limit + 1);
  const page = rows.slice(0, filter.limit);
  const children = await requestsOfLinks(
    db,
    page.map((row) => row.id),
  );
  const now = clock.now();
  const last = page.at(-1);
  return {
    securePayments: page.map((row) => {
      const ids = children.filter((r) => r.securePaymentId === row.id).map((r) => r.requestId);
      return {
        token: row.token,
        securePaymentUrl: securePaymentUrl(payUrl, row.token),
        status: effectiveStatus(row, now),
        payout: row.payout,
        paymentType: ids.length > 1 ? ('batch' as const) : ('single' as const),
        requestIds: ids,
        network: row.network,
        reference: row.reference,
        redirectUrl: row.redirectUrl,
        redirectLabel: row.redirectLabel ?? DEFAULT_REDIRECT_LABEL,
        createdAt: row.createdAt.toISOString(),
        expiresAt: row.expiresAt.toISOString(),
        completedAt: row.completedAt?.toISOString() ?? null,
      };
    }),
    pagination: {
      limit: filter.limit,
      nextCursor: rows.length > filter.limit && last ? encodeCursor(last) : null,
      hasMore: rows.length > filter.limit,
    },
  };
}

function encodeCursor(row: LinkRow): string {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime()) || !isUuid(id)) {
    throw new AppError('invalid_cursor', 'cursor is not one this API returned');
  }
  return { createdAt, id };
}
