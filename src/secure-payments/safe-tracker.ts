import { and, asc, eq, gt } from 'drizzle-orm';
import type { Logger } from 'pino';
import { type Address, getAddress, isHex, type PublicClient } from 'viem';
import type { Clock } from '../base/clock.ts';
import { createPoller, type Poller, type PollerLock } from '../base/poller.ts';
import type { Database } from '../db/client.ts';
import { paymentIntents } from '../db/schema.ts';
import { safeAbi } from '../payments/safe/abi.ts';
import { roundOverIntents } from './intent-rounds.ts';
import { preparedSafeTransaction } from './safe-prepared.ts';
import { endTracking, FAILURE_REASONS, type TrackingOutcome } from './safe-tracking.ts';
import type { IntentRow } from './tracked-intent.ts';

/** On its first round for an intent, the tracker reads the Safe's events this far back. */
const LOOKBACK_BLOCKS = 1_000n;
/** Each round reads again this many blocks below the head it last read (late or reorged logs). */
const OVERLAP_BLOCKS = 12n;
const EXECUTION_SUCCESS = eventOf('ExecutionSuccess');
const EXECUTION_FAILURE = eventOf('ExecutionFailure');

export interface SafeTracker extends Poller {
  /** One round over every tracked intent (what the poller runs); resolves false. */
  round(): Promise<boolean>;
}

/**
 * Follows the payers' Safe transactions recorded with `POST /{token}/intent` until each ends
 * (api-facts §2.8), from the chain alone: the Safe's `ExecutionSuccess` or `ExecutionFailure`
 * for the hash, the Safe's nonce passing the transaction's, or the deadline. Its state is the
 * intents' rows, so a restart resumes where the last process stopped; one process runs it at a
 * time (the leader lock), and `endTracking` ends a row once even if two did.
 *
 * The Safe is the intent's `payerAddress`, else the one `/pay` answered for the hash
 * (`safe_transactions`), which also gives the nonce; with neither, only the deadline ends it.
 */
export function createSafeTracker(deps: {
  readonly db: Database;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The client of a network (an intent's, by id) this process can read, or null. */
  readonly client: (network: string) => PublicClient | null;
  readonly lock?: PollerLock;
  /** Told when tracking failed: `payment.failed` waits in the outbox. */
  readonly onFailed?: () => void;
}): SafeTracker {
  const log = deps.logger;

  /**
   * The chain first, then the clock: an execution seen past the deadline still counts. While
   * the chain cannot be read the intent waits (the 423 has lifted at its deadline anyway).
   */
  const track = async (intent: IntentRow): Promise<void> => {
    const outcome = await onChain(intent);
    const now = deps.clock.now();
    const ended =
      outcome ??
      (intent.safePaymentDeadline !== null && intent.safePaymentDeadline <= now
        ? ({
            kind: 'failed',
            reason: FAILURE_REASONS.deadline,
            safeAddress: await safeAddressOf(deps.db, intent),
          } as const)
        : null);
    if (!ended) return;
    if (await endTracking(deps.db, intent.id, ended, now)) {
      log.info(
        {
          intentId: intent.id,
          network: intent.network,
          outcome: ended.kind,
          ...(ended.kind === 'failed' && { reason: ended.reason }),
        },
        'Safe transaction tracking ended',
      );
      if (ended.kind === 'failed') deps.onFailed?.();
    }
  };

  /** What the chain says of the intent's Safe transaction, or null while it is pending. */
  const onChain = async (intent: IntentRow): Promise<TrackingOutcome | null> => {
    const client = deps.client(intent.network);
    const hash = intent.safeTxHash;
    if (!client || hash === null || !isHex(hash)) return null;
    const prepared = await preparedSafeTransaction(deps.db, hash);
    const safe = safeOf(intent, prepared);
    if (!safe) return null;
    // No code: nothing will ever execute it (a sandbox chain started afresh, a wrong address).
    const code = await client.getCode({ address: safe });
    if (code === undefined || code === '0x') {
      return { kind: 'failed', reason: FAILURE_REASONS.noSafe, safeAddress: safe };
    }
    // Uncached: viem keeps a head for its polling interval, and a round must see the latest.
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const from = intent.scanFromBlock ?? (head > LOOKBACK_BLOCKS ? head - LOOKBACK_BLOCKS : 0n);
    const range = { address: safe, args: { txHash: hash }, fromBlock: from, toBlock: head };
    const [executed, failed] = await Promise.all([
      client.getLogs({ ...range, event: EXECUTION_SUCCESS }),
      client.getLogs({ ...range, event: EXECUTION_FAILURE }),
    ]);
    const success = executed[0];
    if (success) return { kind: 'executed', txHash: success.transactionHash, safeAddress: safe };
    const failure = failed[0];
    if (failure) {
      return {
        kind: 'failed',
        reason: FAILURE_REASONS.reverted,
        txHash: failure.transactionHash,
        safeAddress: safe,
      };
    }
    // Read at the same block as the logs: an execution after it cannot pass for another's.
    if (prepared && getAddress(prepared.safeAddress) === safe) {
      const nonce = await client.readContract({
        address: safe,
        abi: safeAbi,
        functionName: 'nonce',
        blockNumber: head,
      });
      if (nonce > prepared.nonce) {
        return { kind: 'failed', reason: FAILURE_REASONS.nonceUsed, safeAddress: safe };
      }
    }
    const next = head > OVERLAP_BLOCKS ? head - OVERLAP_BLOCKS : 0n;
    if (next > from) {
      await deps.db
        .update(paymentIntents)
        .set({ scanFromBlock: next })
        .where(eq(paymentIntents.id, intent.id));
    }
    return null;
  };

  // One Safe's RPC failure must not hold up the others.
  const round = () =>
    roundOverIntents({
      logger: log,
      page: (after, limit) => trackedIntents(deps.db, after, limit),
      track,
      failure: 'Safe tracking read failed',
    });

  const poller = createPoller({
    logger: log,
    round,
    failure: { level: 'warn', message: 'Safe tracker round failed; retrying' },
    ...(deps.lock && { lock: deps.lock }),
  });
  return { ...poller, round };
}

/** The Safe of an intent: the one it names, else the one `/pay` answered for its hash. */
async function safeAddressOf(db: Database, intent: IntentRow): Promise<string | null> {
  if (intent.safeTxHash === null) return intent.payerAddress;
  return safeOf(intent, await preparedSafeTransaction(db, intent.safeTxHash));
}

function safeOf(
  intent: IntentRow,
  prepared: { readonly safeAddress: string } | null,
): Address | null {
  const address = intent.payerAddress ?? prepared?.safeAddress;
  return address ? getAddress(address) : null;
}

/** Tracked intents in id order, after `after` (ids are UUIDv7: creation order). */
function trackedIntents(db: Database, after: string | null, limit: number): Promise<IntentRow[]> {
  return db
    .select()
    .from(paymentIntents)
    .where(
      and(
        eq(paymentIntents.status, 'tracking'),
        after === null ? undefined : gt(paymentIntents.id, after),
      ),
    )
    .orderBy(asc(paymentIntents.id))
    .limit(limit);
}

function eventOf(name: 'ExecutionSuccess' | 'ExecutionFailure') {
  const event = safeAbi.find(
    (item): item is Extract<(typeof safeAbi)[number], { type: 'event'; name: typeof name }> =>
      item.type === 'event' && item.name === name,
  );
  if (!event) throw new Error(`the Safe ABI lacks ${name}`);
  return event;
}
