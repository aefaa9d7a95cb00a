import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.ts';
import { createPoller, type Poller, type PollerLock } from '../base/poller.ts';
import type { Database } from '../db/client.ts';
import { payments, requests, securePayments } from '../db/schema.ts';
import { reportScreening } from './events.ts';
import { walletKey } from './gate.ts';
import { type ScreeningService, screenWallet } from './screen.ts';

/**
 * The second look (api-facts §11.5: the payer is screened on access and on completion): once
 * detection completes a link whose payers are screened, the wallets that paid it (the sender,
 * and the connected wallet when it differs) are screened again. A rejected one marks the link
 * `compliance_failed` (decisions.md), which its merchant sees on the link; its orchestrator
 * hears `kyt.screening.completed`. When no provider answers, the link waits for the next round.
 * Its state is the link's `completionScreenedAt`, so a restart resumes.
 */

/** Links screened per round. */
const BATCH = 20;

export interface CompletionScreener extends Poller {
  /** One round (what the poller runs); resolves true when links were left for the next. */
  round(): Promise<boolean>;
}

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
    const links = await db
      .select()
      .from(securePayments)
      .where(
        and(
          eq(securePayments.status, 'completed'),
          isNull(securePayments.completionScreenedAt),
          sql`${securePayments.screening}->>'mode' = 'kyt_all_wallets'`,
        ),
      )
      .limit(BATCH);
    for (const link of links) await screenCompleted(link);
    return links.length === BATCH;
  };

  const screenCompleted = async (link: typeof securePayments.$inferSelect): Promise<void> => {
    const rules = link.screening;
    if (!rules) return;
    const paid = await db
      .select({
        requestId: requests.requestId,
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
    let rejected = false;
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
          return; // the next round asks again
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
        if (outcome.status === 'rejected') rejected = true;
      }
    }
    await db
      .update(securePayments)
      .set({
        completionScreenedAt: deps.clock.now(),
        ...(rejected && { status: 'compliance_failed' as const }),
      })
      .where(and(eq(securePayments.id, link.id), eq(securePayments.status, 'completed')));
    if (rejected)
      deps.logger.warn(
        { token: link.token },
        'a completed link’s payer was rejected by screening: compliance_failed',
      );
    deps.wakeDispatcher?.();
  };

  const poller = createPoller({
    logger: deps.logger,
    round,
    failure: { level: 'warn', message: 'completion screening round failed' },
    ...(deps.lock && { lock: deps.lock }),
  });
  return { ...poller, round };
}
