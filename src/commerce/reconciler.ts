import { and, asc, eq, gt, inArray, or, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Address, Hex, PublicClient } from 'viem';
import type { Clock } from '../base/clock.ts';
import { createPoller, type Poller, type PollerLock } from '../base/poller.ts';
import type { Database } from '../db/client.ts';
import { commerceActions, commerceEvents, commercePayments } from '../db/schema.ts';
import { broadcastOutcome, minedNonce, transactionStatus } from '../payments/sender.ts';
import { markAction } from './store.ts';

/** Actions read per query; a round reads them all, page by page. */
const PAGE = 100;

/**
 * How long a confirmed action detection has not matched is watched for a reorganisation that
 * takes its transaction back: deeper than any network's confirmations by far.
 */
const REORG_WATCH_MS = 24 * 60 * 60_000;

export interface CommerceReconciler extends Poller {
  /** One round over every action in flight (what the poller runs); resolves false. */
  round(): Promise<boolean>;
}

/** An execute operation's action still in flight, with what the chain is asked about it. */
interface InFlight {
  readonly id: string;
  readonly status: 'pending' | 'sent' | 'confirmed' | 'failed';
  readonly txHash: string | null;
  readonly nonce: number | null;
  readonly rawTransaction: string | null;
  readonly createdAt: Date;
  readonly endedAt: Date | null;
  readonly network: string;
  readonly operator: string;
}

/**
 * Ends the execute operations' actions that no request will end: the process stopped while it
 * waited for the receipt, or before it broadcast, or the node dropped the transaction, or a
 * reorganisation took it back. Each round reads:
 *
 * - `sent`, its receipt mined: `confirmed` on success; `failed` on a revert, its amount free;
 * - `sent`, unknown to the node once `graceMs` has passed since it was made (its request long
 *   over), the operator's mined nonce not yet past the transaction's: it never reached a node
 *   (the process stopped before its broadcast, or the answer was unclear), or the node dropped
 *   it: broadcast again, the same signed bytes, so it lands at most once;
 * - `sent`, unknown to the node once `graceMs` has passed since it was made, and the
 *   operator's mined nonce past the transaction's: another transaction took its nonce, so it
 *   can never be mined: `failed`, its amount free. (Known to the node, it waits.)
 * - `pending` (never signed and broadcast: `sent` is recorded before the broadcast) once
 *   `graceMs` has passed: `failed`, its amount free;
 * - `confirmed` (its receipt succeeded) and not yet matched by a detected event, for a day:
 *   its transaction reverted, or unknown to the node `graceMs` after it was confirmed (a
 *   reorganisation took it back before detection saw it): `failed`, as detection fails a
 *   confirmed action whose event a reorganisation dropped (detect-events.ts), so it no longer
 *   counts as done. Mined again, its event is detected and counts.
 *
 * Its state is the actions' rows, so a restart resumes; one process runs it at a time (the
 * leader lock), and `markAction` moves an action on only from in flight, so neither two
 * reconcilers nor a request answering meanwhile undo each other. A network this process does
 * not read (no client) waits for one that does.
 */
export function createCommerceReconciler(deps: {
  readonly db: Database;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The client of a network this process reads, or null. */
  readonly client: (network: string) => PublicClient | null;
  /** How long an action may be unsent, or its transaction unknown, before it is ended. */
  readonly graceMs: number;
  readonly lock?: PollerLock;
}): CommerceReconciler {
  const log = deps.logger;

  const end = async (action: InFlight, outcome: Outcome) => {
    const endedAt = deps.clock.now();
    const moved = await markAction(
      deps.db,
      action.id,
      outcome.kind === 'confirmed'
        ? { status: 'confirmed', txHash: outcome.txHash, endedAt }
        : {
            status: 'failed',
            txHash: action.txHash,
            failureReason: outcome.reason,
            endedAt,
          },
    );
    if (moved) {
      log.info(
        { actionId: action.id, network: action.network, outcome: outcome.kind },
        'commerce action reconciled',
      );
    }
  };

  const track = async (action: InFlight): Promise<void> => {
    const client = deps.client(action.network);
    if (client === null) return;
    if (action.status === 'confirmed') return recheck(client, action);
    const old = deps.clock.now().getTime() - action.createdAt.getTime() >= deps.graceMs;
    const outcome =
      action.status === 'sent' && action.txHash !== null
        ? await sentOutcome(client, action, action.txHash as Hex, old, resend)
        : old
          ? ({
              kind: 'failed',
              reason: 'never sent: the server stopped before broadcasting it',
            } as const)
          : null;
    if (outcome) await end(action, outcome);
  };

  /** Broadcasts a sent action's transaction again; a refusal waits for its nonce's fate. */
  const resend = async (client: PublicClient, action: InFlight, raw: Hex): Promise<void> => {
    const outcome = await broadcastOutcome(client, raw);
    log.warn(
      { actionId: action.id, network: action.network, outcome: outcome.kind },
      'commerce action broadcast again: its node did not know it',
    );
  };

  /** A confirmed action detection has not matched: failed when its transaction is gone. */
  const recheck = async (client: PublicClient, action: InFlight): Promise<void> => {
    if (action.txHash === null || action.endedAt === null) return;
    const status = await transactionStatus(client, action.txHash as Hex);
    const gone =
      status === 'reverted' ||
      (status === 'unknown' &&
        deps.clock.now().getTime() - action.endedAt.getTime() >= deps.graceMs);
    if (!gone) return;
    const taken = await deps.db
      .update(commerceActions)
      .set({
        status: 'failed',
        failureReason: `taken back by a reorganisation: transaction ${action.txHash} is ${status === 'reverted' ? 'now reverted' : 'no longer on the chain'}`,
        endedAt: deps.clock.now(),
      })
      .where(and(eq(commerceActions.id, action.id), eq(commerceActions.status, 'confirmed')))
      .returning({ id: commerceActions.id });
    if (taken.length > 0) {
      log.warn(
        { actionId: action.id, network: action.network },
        'commerce action taken back by a reorganisation',
      );
    }
  };

  const round = async (): Promise<boolean> => {
    let after: string | null = null;
    for (;;) {
      const actions = await inFlight(
        deps.db,
        after,
        new Date(deps.clock.now().getTime() - REORG_WATCH_MS),
      );
      for (const action of actions) {
        try {
          await track(action);
        } catch (error) {
          log.warn(
            { err: error, actionId: action.id, network: action.network },
            'commerce action reconcile failed',
          );
        }
      }
      const last = actions.at(-1);
      if (!last || actions.length < PAGE) return false;
      after = last.id;
    }
  };

  const poller = createPoller({
    logger: log,
    round,
    failure: { level: 'warn', message: 'commerce reconciler round failed; retrying' },
    ...(deps.lock && { lock: deps.lock }),
  });
  return { ...poller, round };
}

type Outcome =
  | { readonly kind: 'confirmed'; readonly txHash: string }
  | { readonly kind: 'failed'; readonly reason: string };

/** What the chain says of a sent action's transaction, or null while it may still land. */
async function sentOutcome(
  client: PublicClient,
  action: InFlight,
  hash: Hex,
  old: boolean,
  resend: (client: PublicClient, action: InFlight, raw: Hex) => Promise<void>,
): Promise<Outcome | null> {
  const status = await transactionStatus(client, hash);
  if (status === 'success') return { kind: 'confirmed', txHash: hash };
  if (status === 'reverted') return { kind: 'failed', reason: `transaction ${hash} reverted` };
  // Young, it may be the request's own broadcast still under way (refused, its amount freed).
  if (status === 'pending' || !old || action.nonce === null) return null;
  const mined = await minedNonce(client, action.operator as Address);
  if (mined <= action.nonce) {
    if (action.rawTransaction !== null) await resend(client, action, action.rawTransaction as Hex);
    return null;
  }
  return {
    kind: 'failed',
    reason: `transaction ${hash} was dropped: the operator's nonce ${action.nonce} was taken by another transaction`,
  };
}

/**
 * The actions a round looks at: in flight, or confirmed since `since` with no event of their
 * transaction detected for their payment.
 */
function inFlight(db: Database, after: string | null, since: Date): Promise<InFlight[]> {
  return db
    .select({
      id: commerceActions.id,
      status: commerceActions.status,
      txHash: commerceActions.txHash,
      nonce: commerceActions.nonce,
      rawTransaction: commerceActions.rawTransaction,
      createdAt: commerceActions.createdAt,
      endedAt: commerceActions.endedAt,
      network: commercePayments.network,
      operator: commercePayments.operator,
    })
    .from(commerceActions)
    .innerJoin(commercePayments, eq(commercePayments.id, commerceActions.commercePaymentId))
    .where(
      and(
        or(
          inArray(commerceActions.status, ['pending', 'sent']),
          and(
            eq(commerceActions.status, 'confirmed'),
            gt(commerceActions.endedAt, since),
            sql`not exists (select 1 from ${commerceEvents} where ${commerceEvents.commercePaymentId} = ${commerceActions.commercePaymentId} and lower(${commerceEvents.txHash}) = lower(${commerceActions.txHash}))`,
          ),
        ),
        after === null ? undefined : gt(commerceActions.id, after),
      ),
    )
    .orderBy(asc(commerceActions.id))
    .limit(PAGE);
}
