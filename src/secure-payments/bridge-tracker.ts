import type { StatusResponse } from '@lifi/types';
import { and, asc, eq, gt, inArray, isNull } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.ts';
import { createPoller, type Poller, type PollerLock } from '../base/poller.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Aggregator } from '../crosschain/aggregator.ts';
import type { Database } from '../db/client.ts';
import { paymentIntents, payments, securePayments } from '../db/schema.ts';
import type { PaymentSink } from '../detection/types.ts';
import { settleDelivered } from './bridge-settlement.ts';
import { enqueueIntentEvent, type IntentEvent } from './intent-events.ts';
import { roundOverIntents } from './intent-rounds.ts';
import type { IntentRow } from './tracked-intent.ts';

/** How a bridge transfer ends, as the aggregator reports it (or the deadline decides). */
type BridgeOutcome =
  | { readonly kind: 'delivered'; readonly receivingTxHash: string | null }
  | { readonly kind: 'failed'; readonly reason: string }
  | {
      readonly kind: 'refunded';
      readonly refundTxHash: string | null;
      readonly amount: string | null;
    };

export const BRIDGE_NOT_DONE = 'bridge transfer not completed in time';
export const BRIDGE_PARTIAL = 'bridge transfer failed (PARTIAL: other tokens paid to the payer)';

export interface BridgeTracker extends Poller {
  /** One round over every bridging intent (what the poller runs); resolves false. */
  round(): Promise<boolean>;
}

/**
 * Follows payers' cross-chain transfers recorded with `POST /{token}/intent` (`txHash` on
 * another network) through the routing aggregator's status operation, until each ends:
 * delivered (the receiving transaction kept; detection confirms the payment on the link's
 * network as any other, and where it has not within `settleAfterMs` the payment is settled on
 * the aggregator's word: bridge-settlement.ts), failed (`payment.failed`), or refunded to the
 * payer (`payment.refunded`; the link was payable all along). A transfer not done by its
 * deadline has failed. Its state is the intents' rows, so a restart resumes; one process runs it at a time
 * (the leader lock), and a row ends once even if two did.
 */
export function createBridgeTracker(deps: {
  readonly db: Database;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly aggregator: Aggregator;
  readonly chains: ChainRegistry;
  /** What a settled payment changes (settlement.ts); without it only detection settles. */
  readonly sink?: PaymentSink;
  /** How long after a delivery detection has to see its payment (`BRIDGE_SETTLE_AFTER_MS`). */
  readonly settleAfterMs: number;
  readonly lock?: PollerLock;
  /** Told when an ending queued a webhook. */
  readonly onEnded?: () => void;
}): BridgeTracker {
  const log = deps.logger;

  const chainIdOf = (network: string) => deps.chains.network(network)?.chainId ?? null;

  const track = async (intent: BridgingIntent): Promise<void> => {
    if (intent.status === 'delivered') {
      if (await settleDelivered(deps, intent)) {
        log.info({ intentId: intent.id }, 'bridge transfer settled');
      }
      return;
    }
    const fromChain = chainIdOf(intent.network);
    const toChain = chainIdOf(intent.linkNetwork);
    const outcome =
      intent.txHash === null || fromChain === null || toChain === null
        ? null
        : outcomeOf(await deps.aggregator.status({ txHash: intent.txHash, fromChain, toChain }));
    const now = deps.clock.now();
    const ended =
      outcome ??
      (intent.bridgeDeadline !== null && intent.bridgeDeadline <= now
        ? ({ kind: 'failed', reason: BRIDGE_NOT_DONE } as const)
        : null);
    if (!ended) return;
    if (await endBridge(deps.db, intent, ended, now)) {
      log.info(
        { intentId: intent.id, network: intent.network, outcome: ended.kind },
        'bridge transfer tracking ended',
      );
      if (ended.kind !== 'delivered') deps.onEnded?.();
    }
  };

  // The aggregator failing (its breaker open) holds each transfer where it stands.
  const round = () =>
    roundOverIntents({
      logger: log,
      page: (after, limit) => bridgingIntents(deps.db, after, limit),
      track,
      failure: 'bridge status read failed',
    });

  const poller = createPoller({
    logger: log,
    round,
    failure: { level: 'warn', message: 'bridge tracker round failed; retrying' },
    ...(deps.lock && { lock: deps.lock }),
  });
  return { ...poller, round };
}

/**
 * LI.FI's status as an ending, or null while the transfer is under way (or not yet seen).
 * `DONE` is a delivery, which the tracker may settle on the aggregator's word, except with
 * `REFUNDED` (the payer got the tokens back) and `PARTIAL` (the bridge paid other tokens to
 * the route's fallback address, the payer's): the link was not paid.
 */
function outcomeOf(answer: StatusResponse): BridgeOutcome | null {
  const receiving = receivedOf(answer);
  if (answer.status === 'DONE' && answer.substatus === 'REFUNDED') {
    return {
      kind: 'refunded',
      refundTxHash: receiving?.txHash ?? null,
      amount: receiving?.amount ?? null,
    };
  }
  if (answer.status === 'DONE' && answer.substatus === 'PARTIAL') {
    return { kind: 'failed', reason: BRIDGE_PARTIAL };
  }
  if (answer.status === 'DONE') {
    return { kind: 'delivered', receivingTxHash: receiving?.txHash ?? null };
  }
  if (answer.status === 'FAILED') {
    return { kind: 'failed', reason: `bridge transfer failed (${answer.substatus ?? 'unknown'})` };
  }
  return null;
}

/** The receiving transaction an answer names (the refund's, for a refund), if any. */
function receivedOf(answer: StatusResponse): { txHash: string; amount: string | null } | null {
  const received: unknown = 'receiving' in answer ? answer.receiving : null;
  if (typeof received !== 'object' || received === null || !('txHash' in received)) return null;
  const { txHash } = received;
  const amount = 'amount' in received ? received.amount : null;
  return typeof txHash === 'string'
    ? { txHash, amount: typeof amount === 'string' ? amount : null }
    : null;
}

/**
 * Ends a bridging intent in one transaction: its status, end, receiving hash or reason, and the
 * webhook its ending sends. Only a row still bridging changes: false when another had ended it.
 */
async function endBridge(
  db: Database,
  bridging: BridgingIntent,
  outcome: BridgeOutcome,
  now: Date,
): Promise<boolean> {
  const intentId = bridging.id;
  return db.transaction(async (tx) => {
    const [intent] = await tx
      .update(paymentIntents)
      .set({
        status: outcome.kind,
        // A delivery ends once its payment counts (bridge-settlement.ts).
        ...(outcome.kind === 'delivered'
          ? { deliveredAt: now, receivingTxHash: outcome.receivingTxHash }
          : { endedAt: now }),
        ...(outcome.kind === 'refunded' && { receivingTxHash: outcome.refundTxHash }),
        ...(outcome.kind === 'failed' && { failureReason: outcome.reason }),
      })
      .where(and(eq(paymentIntents.id, intentId), eq(paymentIntents.status, 'bridging')))
      .returning();
    if (!intent) return false;
    if (outcome.kind === 'delivered' && outcome.receivingTxHash !== null) {
      await nameDeposit(tx, intent, bridging.linkNetwork, outcome.receivingTxHash);
    }
    const event = eventOf(intent, outcome);
    if (event) {
      const [link] = await tx
        .select({ token: securePayments.token })
        .from(securePayments)
        .where(eq(securePayments.id, intent.securePaymentId));
      if (link) await enqueueIntentEvent(tx, link.token, intent, event, now);
    }
    return true;
  });
}

/**
 * The deposit a delivered transfer started: written on the cross-chain payments its receiving
 * transaction made that detection recorded before it knew which intent they came from
 * (record.ts names it when it does).
 */
async function nameDeposit(
  tx: Database,
  intent: IntentRow,
  linkNetwork: string,
  receivingTxHash: string,
) {
  if (intent.txHash === null) return;
  await tx
    .update(payments)
    .set({ sourceTxHash: intent.txHash })
    .where(
      and(
        eq(payments.network, linkNetwork),
        inArray(payments.txHash, [...new Set([receivingTxHash, receivingTxHash.toLowerCase()])]),
        eq(payments.sourceNetwork, intent.network),
        isNull(payments.sourceTxHash),
      ),
    );
}

function eventOf(intent: IntentRow, outcome: BridgeOutcome): IntentEvent | null {
  switch (outcome.kind) {
    case 'delivered':
      return null;
    case 'failed':
      return { event: 'payment.failed', reason: outcome.reason };
    case 'refunded': {
      const sent = intent.details.sourceAmount;
      return {
        event: 'payment.refunded',
        refundAmount: outcome.amount ?? (typeof sent === 'string' ? sent : ''),
        refundTxHash: outcome.refundTxHash,
      };
    }
  }
}

type BridgingIntent = IntentRow & { readonly linkNetwork: string; readonly linkToken: string };

/** Bridging and delivered intents in id order, after `after`, each with its link's facts. */
async function bridgingIntents(
  db: Database,
  after: string | null,
  limit: number,
): Promise<BridgingIntent[]> {
  const rows = await db
    .select({
      intent: paymentIntents,
      linkNetwork: securePayments.network,
      linkToken: securePayments.token,
    })
    .from(paymentIntents)
    .innerJoin(securePayments, eq(securePayments.id, paymentIntents.securePaymentId))
    .where(
      and(
        inArray(paymentIntents.status, ['bridging', 'delivered']),
        after === null ? undefined : gt(paymentIntents.id, after),
      ),
    )
    .orderBy(asc(paymentIntents.id))
    .limit(limit);
  return rows.map((row) => ({
    ...row.intent,
    linkNetwork: row.linkNetwork,
    linkToken: row.linkToken,
  }));
}
