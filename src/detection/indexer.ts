import { and, desc, eq, lte } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.ts';
import { createPoller } from '../base/poller.ts';
import type { NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import type { LeaderLock } from '../db/leader-lock.ts';
import { chainBlocks, chainCheckpoints } from '../db/schema.ts';
import { RangeTooLargeError } from './evm-source.ts';
import { type RangeDeps, readRange, recordRange } from './range.ts';
import { rollBack } from './rollback.ts';
import type {
  BlockSource,
  ContractLog,
  DetectedPayment,
  LogWatcher,
  PaymentSink,
} from './types.ts';

/** On first start, scan this far back from the confirmed head (payments precede no request). */
const INITIAL_LOOKBACK_BLOCKS = 1_000n;
/** Log ranges start here, halve when an RPC refuses one, and grow back after successes. */
const INITIAL_SPAN = 2_000n;
const MAX_SPAN = 10_000n;
/** Stored hashes compared, newest first, to find a fork. */
const FORK_SEARCH_DEPTH = 512;

interface TickResult {
  /** Last confirmed block now recorded (null when the chain is shorter than the depth). */
  readonly scannedTo: bigint | null;
  readonly recorded: number;
  readonly rolledBack: number;
}

export interface Indexer {
  readonly network: NetworkId;
  /** One pass: check for a reorganisation, then scan up to the confirmed head. */
  tick(): Promise<TickResult>;
  /**
   * Passes every `pollMs`, and at once when the node tells of a new head, where the source can
   * follow them (heads.ts); polling alone while it cannot, or its subscription broke.
   */
  start(pollMs: number): void;
  stop(): Promise<void>;
}

/**
 * Finds payments on one network. Only blocks `confirmations` deep are scanned, and each range
 * is recorded with its checkpoint in one transaction, so a restart resumes exactly where the
 * last one stopped. Before scanning, the hash of the checkpoint block is compared with the
 * chain's: a mismatch means the chain reorganised below us, and what was recorded above the
 * fork is rolled back and scanned again. Where the node can be followed, a pass starts as soon
 * as it tells of a new head, with that head: the poll is then only the safety net, and the
 * one loop when the subscription breaks (it is taken again at the next poll).
 */
export function createIndexer(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  chains: ChainRegistry;
  network: NetworkId;
  source: BlockSource;
  confirmations: number;
  lock: LeaderLock;
  /** What follows from payments (requests, links, webhooks); see src/workers/settlement.ts. */
  sink: PaymentSink;
  /** Other contracts' logs read in the same pass (commerce payments' wrapper events). */
  watchers?: readonly LogWatcher[];
  /** Payments a transaction records, at most a block's more (range.ts; tests make it small). */
  turnRows?: number;
  /** Called after payments were recorded (to wake the webhook dispatcher). */
  onRecorded?: () => void;
  /** Told the head, the target (head - confirmations) and the last block recorded (metrics). */
  onProgress?: (progress: { head: bigint; target: bigint; indexed: bigint | null }) => void;
}): Indexer {
  const range: RangeDeps = {
    db: deps.db,
    chains: deps.chains,
    network: deps.network,
    source: deps.source,
    sink: deps.sink,
    watchers: deps.watchers ?? [],
    ...(deps.turnRows !== undefined && { turnRows: deps.turnRows }),
  };
  const log = deps.logger.child({ network: deps.network });
  let span = INITIAL_SPAN;
  /** Never grow back past a range the RPC refused. */
  let ceiling = MAX_SPAN;

  /** The last recorded block, and the hash we recorded for it, in one read. */
  const checkpoint = async (): Promise<{ number: bigint; hash: string | null } | null> => {
    const [row] = await deps.db
      .select({ number: chainCheckpoints.lastBlock, hash: chainBlocks.hash })
      .from(chainCheckpoints)
      .leftJoin(
        chainBlocks,
        and(
          eq(chainBlocks.network, chainCheckpoints.network),
          eq(chainBlocks.number, chainCheckpoints.lastBlock),
        ),
      )
      .where(eq(chainCheckpoints.network, deps.network));
    return row ?? null;
  };

  /**
   * Highest remembered block the chain still agrees with, when the checkpoint block disagrees
   * (null when it agrees: no reorganisation below us).
   */
  const findFork = async (last: {
    number: bigint;
    hash: string | null;
  }): Promise<bigint | null> => {
    if (last.hash !== null && (await deps.source.blockHash(last.number)) === last.hash) return null;
    const remembered = await deps.db
      .select()
      .from(chainBlocks)
      .where(and(eq(chainBlocks.network, deps.network), lte(chainBlocks.number, last.number)))
      .orderBy(desc(chainBlocks.number))
      .limit(FORK_SEARCH_DEPTH);
    const [newest] = remembered;
    if (!newest || (await deps.source.blockHash(newest.number)) === newest.hash) return null;
    for (const block of remembered.slice(1)) {
      if ((await deps.source.blockHash(block.number)) === block.hash) return block.number;
    }
    return (remembered.at(-1)?.number ?? 1n) - 1n;
  };

  /** Where this process's last pass recorded up to (null before one has, or after it failed). */
  let scanned: bigint | null = null;

  /**
   * A followed head's blocks past where this process last recorded, read while the checkpoint
   * is: the database says where to start and the read is used only where it agrees (it does
   * unless another process recorded meanwhile, or the chain forked). Null when there is no
   * such guess, or it would not be the pass's first read.
   */
  const readAhead = (known: bigint | null) => {
    if (known === null || scanned === null) return null;
    const from = scanned + 1n;
    const to = known - BigInt(deps.confirmations);
    if (to < from || to - from >= span) return null;
    const read = readRange(range, from, to);
    read.catch(() => {});
    return { from, to, read };
  };

  /** One pass, up to `known` when a followed head told it (else the node is asked). */
  const pass = async (known: bigint | null): Promise<TickResult> => {
    let guessed = readAhead(known);
    scanned = null;
    const [head, saved] = await Promise.all([known ?? deps.source.head(), checkpoint()]);
    const target = head - BigInt(deps.confirmations);
    let last = saved?.number ?? null;
    let rolledBack = 0;
    // A node that reports a head below what we recorded is either behind its peers or on a
    // shorter fork; either way, wait until it is past our checkpoint, then compare hashes.
    if (last !== null && last > head) return { scannedTo: null, recorded: 0, rolledBack: 0 };
    if (saved !== null) {
      const fork = await findFork(saved);
      if (fork !== null) {
        rolledBack = await rollBack(
          deps.db,
          { sink: deps.sink, watched: { watchers: range.watchers, now: deps.clock.now() } },
          deps.network,
          fork,
        );
        log.warn(
          { fork: String(fork), was: String(last), rolledBack },
          'chain reorganised below the checkpoint; rescanning',
        );
        last = fork;
        // Begun before the fork was seen: it may hold the blocks the chain just dropped.
        guessed = null;
      }
    }
    deps.onProgress?.({ head, target, indexed: last });
    if (target < 0n) return { scannedTo: null, recorded: 0, rolledBack };
    let from =
      last === null
        ? target > INITIAL_LOOKBACK_BLOCKS
          ? target - INITIAL_LOOKBACK_BLOCKS
          : 0n
        : last + 1n;
    let recorded = 0;
    while (from <= target) {
      const to = from + span - 1n < target ? from + span - 1n : target;
      let read: { payments: DetectedPayment[]; logs: readonly ContractLog[] };
      const ahead = guessed?.from === from && guessed.to === to ? guessed.read : null;
      // Only ever the first read: one the node refused is asked again in smaller ranges.
      guessed = null;
      try {
        read = await (ahead ?? readRange(range, from, to));
      } catch (error) {
        if (error instanceof RangeTooLargeError && span > 1n) {
          span = span / 2n;
          ceiling = span;
          continue;
        }
        throw error;
      }
      // Each turn's webhooks go as soon as it commits, not after the whole backlog, and the
      // progress it made is told even when a later turn fails.
      recorded += await recordRange({ ...range, clock: deps.clock }, read, to, (turn) => {
        if (turn.recorded > 0) deps.onRecorded?.();
        deps.onProgress?.({ head, target, indexed: turn.lastBlock });
      });
      from = to + 1n;
      if (span < ceiling) span = span * 2n > ceiling ? ceiling : span * 2n;
    }
    if (recorded > 0) log.info({ recorded, scannedTo: String(target) }, 'payments recorded');
    scanned = target;
    return { scannedTo: target, recorded, rolledBack };
  };

  /** The newest head a notification told of that no pass has gone by yet. */
  let told: bigint | null = null;
  /** Stops the subscription to new heads; null while there is none. */
  let unfollow: (() => void) | null = null;
  /** False once the source said its node cannot be followed: it is only polled. */
  let followable = deps.source.follow !== undefined;

  const poller = createPoller({
    logger: log,
    lock: deps.lock,
    round: async () => {
      // Followed only while this process holds the network: the others have nothing to do.
      follow();
      const known = told;
      told = null;
      await pass(known);
      return false;
    },
    failure: { level: 'warn', message: 'indexer pass failed; retrying' },
  });

  const follow = () => {
    if (unfollow || !followable || !deps.source.follow) return;
    let live = true;
    const stop = deps.source.follow({
      onHead(head) {
        if (!live) return;
        if (told === null || head.number > told) told = head.number;
        poller.wake();
      },
      onDropped(error) {
        if (!live) return;
        live = false;
        unfollow = null;
        told = null;
        log.warn({ err: error }, 'new heads no longer followed; polling until they are again');
      },
    });
    if (stop === null) followable = false;
    else if (live)
      unfollow = () => {
        live = false;
        stop();
      };
  };

  return {
    network: deps.network,
    tick: () => pass(null),
    start: (pollMs) => poller.start(pollMs),
    async stop() {
      unfollow?.();
      unfollow = null;
      await poller.stop();
    },
  };
}
