import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.ts';
import { createPoller, type Poller, type PollerLock } from '../base/poller.ts';
import type { Database } from '../db/client.ts';
import { payments, requests, securePayments } from '../db/schema.ts';
import {
  COMPLIANCE_NOT_ALLOWED,
  COMPLIANCE_REJECTED,
  type Refusal,
  reportAccessRejected,
  reportComplianceFailed,
  reportScreening,
} from './events.ts';
import { walletKey } from './gate.ts';
import { type ScreeningService, screenWallet } from './screen.ts';

/**
 * The second look (api-facts §11.5: the payer is screened on access and on completion): once
 * detection completes a link that checks its payers, the wallets that paid it are checked
 * again. The on-chain payer must be on the link's allowlist, if it has one (calldata asked for
 * a listed wallet may be sent from another); under `kyt_all_wallets` the payer (and the
 * connected wallet when it differs) is screened afresh. A refused one marks the link
 * `compliance_failed` (decisions.md) and its merchant hears `payment.failed` (`subStatus`
 * `compliance_failed`) once; an allowlist refusal also sends `secure_payment.access_rejected`,
 * a screening `kyt.screening.completed` to the orchestrator. When no provider answers, the
 * link is not tried again for `COMPLETION_RETRY_MS`. Its state is the link's
 * `completionScreenedAt` and `completionRetryAt`, so a restart resumes.
 */

/** Links screened per round. */
const BATCH = 20;
/** How long a link waits after a round in which no provider answered for it. */
export const COMPLETION_RETRY_MS = 60_000;

export interface CompletionScreener extends Poller {
  /** One round (what the poller runs); resolves true when links were left for the next. */
  round(): Promise<boolean>;
}

type LinkRow = typeof securePayments.$inferSelect;

export function createCompletionScreener(deps: {
  readonly db: Database;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly screening: ScreeningService;
  readonly lock?: PollerLock;
  readonly wakeDispatcher?: () => void;
}): CompletionScreener {
  const { db } = deps;
  const round = async (): Promise<boolean> => {
    const now = deps.clock.now();
    const links = await db
      .select()
      .from(securePayments)
      .where(
        and(
          eq(securePayments.status, 'completed'),
          isNull(securePayments.completionScreenedAt),
          or(
            sql`${securePayments.screening}->>'mode' = 'kyt_all_wallets'`,
            sql`jsonb_array_length(${securePayments.screening}->'allowedPayerAddresses') > 0`,
          ),
          or(isNull(securePayments.completionRetryAt), lte(securePayments.completionRetryAt, now)),
        ),
      )
      .orderBy(asc(securePayments.createdAt), asc(securePayments.id))
      .limit(BATCH);
    let progressed = 0;
    for (const link of links) if (await screenCompleted(link)) progressed++;
    // More at once only when this round got somewhere: links waiting on providers wait.
    return links.length === BATCH && progressed > 0;
  };

  /** True when the link was settled (passed or failed), false when it waits for providers. */
  const screenCompleted = async (link: LinkRow): Promise<boolean> => {
    const rules = link.screening;
    if (!rules) return true;
    const paid = await db
      .select({
        requestId: requests.requestId,
        paymentReference: requests.paymentReference,
        payer: payments.payerAddress,
        eoa: payments.payerEoaAddress,
      })
      .from(payments)
      .innerJoin(requests, eq(requests.id, payments.requestRowId))
      .where(
        inArray(
          payments.requestRowId,
          db
            .select({ id: requests.id })
            .from(requests)
            .where(eq(requests.securePaymentId, link.id)),
        ),
      );
    const refused = (await offTheList(link, paid)) ?? (await screenPayers(link, paid));
    if (refused === 'unavailable') {
      await db
        .update(securePayments)
        .set({ completionRetryAt: new Date(deps.clock.now().getTime() + COMPLETION_RETRY_MS) })
        .where(eq(securePayments.id, link.id));
      return false;
    }
    const now = deps.clock.now();
    await db.transaction(async (tx) => {
      const failed = await tx
        .update(securePayments)
        .set({
          completionScreenedAt: now,
          completionRetryAt: null,
          ...(refused && { status: 'compliance_failed' as const }),
        })
        .where(and(eq(securePayments.id, link.id), eq(securePayments.status, 'completed')))
        .returning({ id: securePayments.id });
      // Once: only the round that moved the link from `completed` tells the merchant.
      if (refused && failed.length > 0) await reportComplianceFailed(tx, now, link, refused);
    });
    if (refused)
      deps.logger.warn(
        { token: link.token },
        'a completed link’s payer failed its compliance check: compliance_failed',
      );
    deps.wakeDispatcher?.();
    return true;
  };

  /** The first payer off the link's allowlist (reported as an access rejection), if any. */
  const offTheList = async (link: LinkRow, paid: readonly Paid[]): Promise<Refusal | null> => {
    const listed = new Set(link.screening?.allowedPayerAddresses ?? []);
    if (listed.size === 0) return null;
    for (const row of paid) {
      const wallet = row.payer ?? row.eoa;
      if (wallet === null || listed.has(walletKey(wallet))) continue;
      const key = walletKey(wallet);
      await reportAccessRejected(db, deps.clock.now(), { ...link, requestId: row.requestId }, key);
      return { ...row, wallet: key, reason: COMPLIANCE_NOT_ALLOWED };
    }
    return null;
  };

  /** Under KYT, every payer screened afresh: the first rejected, or `unavailable`. */
  const screenPayers = async (
    link: LinkRow,
    paid: readonly Paid[],
  ): Promise<Refusal | 'unavailable' | null> => {
    const rules = link.screening;
    if (rules?.mode !== 'kyt_all_wallets') return null;
    let refused: Refusal | null = null;
    for (const row of paid) {
      const wallet = row.payer ?? row.eoa;
      if (wallet === null) continue;
      const key = walletKey(wallet);
      const owner = row.eoa === null ? key : walletKey(row.eoa);
      for (const address of owner === key ? [key] : [key, owner]) {
        const outcome = await screenWallet(deps, {
          wallet: address,
          network: link.network,
          providers: rules.providers,
          securePaymentId: link.id,
          stage: 'completion',
        });
        if (outcome.status === 'unavailable') {
          if (deps.screening.failOpen) continue;
          return 'unavailable';
        }
        if (outcome.fresh) {
          await reportScreening(
            db,
            deps.clock.now(),
            { ...link, requestId: row.requestId },
            {
              walletAddress: address,
              eoaAddress: owner,
              smartAccountAddress: owner === key ? null : key,
              status: outcome.status,
              provider: outcome.provider,
              policyId: outcome.policyId,
            },
          );
        }
        if (outcome.status === 'rejected' && refused === null)
          refused = { ...row, wallet: key, reason: COMPLIANCE_REJECTED };
      }
    }
    return refused;
  };

  const poller = createPoller({
    logger: deps.logger,
    round,
    failure: { level: 'warn', message: 'completion screening round failed' },
    ...(deps.lock && { lock: deps.lock }),
  });
  return { ...poller, round };
}

interface Paid {
  readonly requestId: string;
  readonly paymentReference: string;
  readonly payer: string | null;
  readonly eoa: string | null;
}
