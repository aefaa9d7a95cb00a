import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import { resolveLinkBranding } from '../branding/resolve.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { preparedPerDatabase } from '../db/prepared.ts';
import { requests, securePayments } from '../db/schema.ts';
import { type FeeLegView, feeLegViewsOf } from '../fees/legs.ts';
import type { LinkScope } from '../http/principal.ts';
import { formatAmount } from '../payments/amounts.ts';
import { type PaymentRow, paymentsOfRequests } from '../payments/records.ts';
import type { PaymentLeg } from '../payments/transactions.ts';
import { amountDue, requestLeg } from '../requests/legs.ts';
import type { RequestRow } from '../requests/requests.ts';
import { requestUnits } from '../requests/units.ts';
import { DEFAULT_REDIRECT_LABEL } from './create.ts';
import {
  type Child,
  childBlock,
  childrenOf,
  type MulticallStatus,
  multicallStatus,
} from './link-children.ts';
import { effectiveStatus, type LinkRow, type LinkStatus } from './link-row.ts';
import { preparedSafeTransaction } from './safe-prepared.ts';
import { trackedIntentOf } from './tracked-intent.ts';

export interface Link {
  readonly row: LinkRow;
  /**
   * Stored status, with `pending` past its expiry read as `expired`; a multicall parent's
   * follows its children.
   */
  readonly status: LinkStatus | MulticallStatus;
  /** Its requests; a multicall parent's are its children's, in the children's order. */
  readonly requests: readonly RequestRow[];
  /** A multicall parent's children; null on every other link. */
  readonly children: readonly Child[] | null;
  /** While a payer's Safe transaction for it is tracked, until when; else null. */
  readonly trackedUntil: Date | null;
  /** Its latest transfers from other networks, newest first (`bridge-intent.ts` reads them). */
  readonly bridgeTransfers: readonly SentTransfer[];
}

/** A transfer a payer sent from another network to pay the link, and its intent's status. */
interface SentTransfer {
  readonly txHash: string;
  readonly status: string;
}

/** Transfers a link's display lists at most: the latest, which a page just sent. */
const SHOWN_TRANSFERS = 10;

/**
 * A multicall parent's branding: none yet (its children may be of several client IDs); the
 * page uses its defaults (api-facts §11.4). The reference's branding object requires an id,
 * which the defaults do not have.
 */
export const NO_BRANDING = null;

/**
 * The link by its token, its requests in order and its latest transfers from other networks,
 * in one round trip; prepared once per database. Payments are not read: what is still due is
 * on each request (`totalAmountPaid`), and only a completed link's answer and the lookup by
 * request name payments (`linkPayments`).
 */
const linkQueries = preparedPerDatabase((db) => {
  // Read on the first row only (the rows come in position order): not once per request.
  const bridgeTransfers = sql<SentTransfer[] | null>`case when coalesce(${requests.position}, 0) = 0
    then (
      select coalesce(jsonb_agg(jsonb_build_object('txHash', t.tx_hash, 'status', t.status)
                                order by t.created_at desc), '[]'::jsonb)
      from (select tx_hash, status, created_at from payment_intents
            where secure_payment_id = ${securePayments.id} and kind = 'bridge'
              and tx_hash is not null
            order by created_at desc limit ${sql.raw(String(SHOWN_TRANSFERS))}) t)
    end`;
  const query = (where: SQL | undefined) =>
    db
      .select({ link: securePayments, request: requests, bridgeTransfers })
      .from(securePayments)
      .leftJoin(requests, eq(requests.securePaymentId, securePayments.id))
      .where(where)
      .orderBy(asc(requests.position));
  const token = eq(securePayments.token, sql.placeholder('token'));
  return {
    ofAccount: query(
      and(token, eq(securePayments.accountId, sql.placeholder('accountId'))),
    ).prepare('link_of_account'),
    anyAccount: query(token).prepare('link_of_any_account'),
  };
});

/**
 * A link of the caller's account; another account's link is as unknown as a missing one. The
 * hosted pay page's scope reaches any account's link by its token.
 */
export async function loadLink(
  db: Database,
  clock: Clock,
  scope: LinkScope,
  token: string,
): Promise<Link> {
  const queries = linkQueries(db);
  const joined =
    'accountId' in scope
      ? await queries.ofAccount.execute({ token: token.toUpperCase(), accountId: scope.accountId })
      : await queries.anyAccount.execute({ token: token.toUpperCase() });
  const row = joined[0]?.link;
  if (!row) throw new AppError('secure_payment_not_found', 'Secure payment not found');
  const bridgeTransfers = joined[0]?.bridgeTransfers ?? [];
  const now = clock.now();
  const trackedUntil =
    row.trackingUntil !== null && row.trackingUntil > now ? row.trackingUntil : null;
  if (row.multicall) {
    const children = await childrenOf(db, row.id);
    return {
      row,
      status: multicallStatus(row, children, now),
      requests: children.flatMap((child) => child.requests),
      children,
      trackedUntil,
      bridgeTransfers,
    };
  }
  return {
    row,
    status: effectiveStatus(row, now),
    requests: joined.flatMap(({ request }) => (request === null ? [] : [request])),
    children: null,
    trackedUntil,
    bridgeTransfers,
  };
}

/** Each request's payments, oldest first, by request row id. */
export function linkPayments(
  db: Database,
  link: Link,
): Promise<ReadonlyMap<string, readonly PaymentRow[]>> {
  return paymentsOfRequests(
    db,
    link.requests.map((request) => request.id),
  );
}

/**
 * Only pending links can be shown for payment or paid: completed ones answer 409 with each
 * request's state (the reference API's body, inside our envelope), the others 403.
 */
export async function assertPayable(deps: CompletedDeps, link: Link): Promise<void> {
  switch (link.status) {
    case 'pending':
    case 'partially_settled':
      if (link.trackedUntil !== null) throw await inProgressError(deps, link);
      return;
    case 'completed':
      throw await completedError(deps, link);
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

/**
 * 423 while a payer's Safe transaction for the link is tracked: the reference's body, each
 * request with the Safe transaction that should pay it. Nothing may be built or paid meanwhile.
 */
async function inProgressError(deps: CompletedDeps, link: Link): Promise<AppError> {
  const [intent, branding] = await Promise.all([
    trackedIntentOf(deps.db, link.row.id),
    resolveLinkBranding(deps.db, link.row.clientIdId),
  ]);
  const prepared =
    intent?.safeTxHash == null ? null : await preparedSafeTransaction(deps.db, intent.safeTxHash);
  const chainId = deps.chains.network(link.row.network)?.chainId ?? null;
  const deadline = intent?.safePaymentDeadline ?? link.trackedUntil;
  return new AppError('secure_payment_in_progress', 'Secure payment is in progress', {
    details: {
      status: 'pending',
      branding,
      requestStatuses: link.requests.map((r) => ({
        requestId: r.requestId,
        hasBeenPaid: r.status === 'paid',
        safeTxHash: intent?.safeTxHash ?? null,
        chainId,
        safePaymentDeadline: deadline === null ? null : Math.floor(deadline.getTime() / 1000),
      })),
      // Ours: the Safe transaction itself, for the owners still to sign and execute it.
      safeTransaction: prepared?.transaction ?? null,
    },
  });
}

/** The fee legs of a link's fee plan, paid or outstanding; none without a plan's fees. */
export async function linkFeeLegs(deps: CompletedDeps, link: Link): Promise<FeeLegView[]> {
  if (!link.row.feePlan?.fees.length) return [];
  const legs = await feeLegViewsOf(
    deps.db,
    deps.chains,
    link.requests.map((r) => r.id),
  );
  return link.requests.flatMap((r) => legs.get(r.id) ?? []);
}

/** What a completed link's answer reads: its payments, its branding, its currencies. */
export interface CompletedDeps {
  readonly db: Database;
  readonly chains: ChainRegistry;
}

/**
 * 409 with each request's state (the reference API's body, inside our envelope), and what a
 * receipt needs beside it (ours): what each request was for and to whom, when it was paid, the
 * link's reference, the fee plan it was paid under and its fee legs, paid or outstanding.
 */
export async function completedError(deps: CompletedDeps, link: Link): Promise<AppError> {
  const [payments, branding, feeLegs] = await Promise.all([
    linkPayments(deps.db, link),
    resolveLinkBranding(deps.db, link.row.clientIdId),
    linkFeeLegs(deps, link),
  ]);
  const statuses = link.requests.map((r) => {
    // The latest payment of the request: the one that completed it.
    const last = payments.get(r.id)?.at(-1);
    const units = requestUnits(deps.chains, r);
    return {
      requestId: r.requestId,
      hasBeenPaid: r.status === 'paid',
      txHash: last?.txHash ?? null,
      payee: r.payee,
      amount: formatAmount(r.expectedAmount, units.decimals),
      currency: r.invoiceCurrency,
      paidAt: last?.timestamp.toISOString() ?? null,
    };
  });
  // ISO 8601 strings of one format sort as their times do.
  const paidAt = statuses.reduce<string | null>(
    (latest, s) =>
      s.paidAt !== null && (latest === null || s.paidAt > latest) ? s.paidAt : latest,
    null,
  );
  return new AppError('secure_payment_completed', 'Secure payment has already been completed', {
    details: {
      status: 'completed',
      branding,
      // Ours: which network the transactions are on, so a page can link to its explorer, and
      // the merchant's way back, so a payer who returns to a paid link still finds it.
      network: link.row.network,
      redirectUrl: link.row.redirectUrl,
      redirectLabel: link.row.redirectLabel ?? DEFAULT_REDIRECT_LABEL,
      reference: link.row.reference,
      feePlan: link.row.feePlan ?? null,
      paidAt,
      requestStatuses: statuses,
      // Ours: the fee legs of the link's fee plan, each paid or outstanding (a payer may pay
      // the payee and skip a fee: the link is complete, the fee is still owed).
      feeLegs,
    },
  });
}

/**
 * The legs still to pay: what each request of the link still wants, in its payment currency,
 * to its payee. A request paid in full (one of a batch, say) has no leg.
 */
export function linkLegs(chains: ChainRegistry, link: Link, now: Date): PaymentLeg[] {
  return payableRequests(link, now).flatMap((request) => {
    const due = amountDue(request);
    return due > 0n ? [requestLeg(chains, request, due)] : [];
  });
}

/**
 * The requests a payment may cover now: all of a link's; of a multicall parent, those of the
 * children that are not blocked (a child expired or invalidated since is left out).
 */
function payableRequests(link: Link, now: Date): readonly RequestRow[] {
  if (!link.children) return link.requests;
  return link.children.flatMap((child) => (childBlock(child, now) ? [] : child.requests));
}
