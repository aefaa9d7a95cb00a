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
import { matchFeeLegs } from './fee-legs.ts';
import type { Payers } from './payer-accounts.ts';
import { matchRequests, recordPayments, recurringPayers } from './record.ts';
import { rollBack } from './rollback.ts';
import type {
  BlockSource,
  ContractLog,
  DetectedPayment,
  LogWatcher,
  PaymentSink,
} from './types.ts';
import { settledByWatchers } from './watched.ts';

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
  start(pollMs: number): void;
  stop(): Promise<void>;
}

/**
 * Finds payments on one network. Only blocks `confirmations` deep are scanned, and each range
 * is recorded with its checkpoint in one transaction, so a restart resumes exactly where the
 * last one stopped. Before scanning, the hash of the checkpoint block is compared with the
 * chain's: a mismatch means the chain reorganised below us, and what was recorded above the
 * fork is rolled back and scanned again.
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
  /** Called after payments were recorded (to wake the webhook dispatcher). */
  onRecorded?: () => void;
  /** Told the head, the target (head - confirmations) and the last block recorded (metrics). */
  onProgress?: (progress: { head: bigint; target: bigint; indexed: bigint | null }) => void;
}): Indexer {
  const watchers = deps.watchers ?? [];
  const watched = watchers.flatMap((w) => w.addresses);
  /** The payments of a range and the watched contracts' logs, from one read of the node. */
  const read = async (from: bigint, to: bigint) =>
    watched.length > 0 && deps.source.scan
      ? deps.source.scan(from, to, watched)
      : { payments: await deps.source.events(from, to), logs: [] };
  /** The watchers' part of a range, in the transaction that records it. */
  const recordWatched = async (tx: Database, logs: readonly ContractLog[], now: Date) => {
    let recorded = 0;
    for (const watcher of watchers) {
      const mine = new Set(watcher.addresses.map((a) => a.toLowerCase()));
      const own = logs.filter((log) => mine.has(log.address.toLowerCase()));
      if (own.length > 0) recorded += await watcher.recorded(tx, own, now);
    }
    return recorded;
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

  const tick = async (): Promise<TickResult> => {
    const [head, saved] = await Promise.all([deps.source.head(), checkpoint()]);
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
          { sink: deps.sink, watched: { watchers, now: deps.clock.now() } },
          deps.network,
          fork,
        );
        log.warn(
          { fork: String(fork), was: String(last), rolledBack },
          'chain reorganised below the checkpoint; rescanning',
        );
        last = fork;
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
      let events: DetectedPayment[];
      let logs: readonly ContractLog[];
      try {
        ({ payments: events, logs } = await read(from, to));
      } catch (error) {
        if (error instanceof RangeTooLargeError && span > 1n) {
          span = span / 2n;
          ceiling = span;
          continue;
        }
        throw error;
      }
      const [requested, feeLegs] = await Promise.all([
        matchRequests(deps.db, deps.chains, deps.network, events),
        matchFeeLegs(deps.db, deps.chains, deps.network, events),
      ]);
      const matched = await settledByWatchers(deps.db, watchers, requested, logs);
      // The recurring payers and the checkpoint's block, asked of the database and the node at
      // once; the node is asked who paid only where no schedule names the payer.
      const [recurring, toHash] = await Promise.all([
        recurringPayers(
          deps.db,
          matched.map((m) => m.request.id),
        ),
        deps.source.blockHash(to),
      ]);
      // A recurring execution's sender is our relayer: the payer is the subscriber, whose
      // signed permit it ran (their own wallet too); a watcher's payer likewise (a commerce
      // capture's buyer, not the operator that sent it). Otherwise the chain says who paid.
      const withPayers = await Promise.all(
        matched.map(async (m) => {
          const known = m.payer ?? recurring.get(m.request.id);
          if (known) {
            const payers = { payerAddress: known, payerEoaAddress: known };
            return { ...m, event: { ...m.event, ...payers } };
          }
          const { bridgedFrom, ...payers } = await deps.source.payers(m.event);
          // A bridge's fill paid: cross-chain, from the fill's origin chain (its deposit's
          // transaction is the payer's bridge intent's, found when it is recorded).
          const bridge = bridgedFrom && {
            sourceNetwork:
              deps.chains.networkByChainId(bridgedFrom.originChainId)?.id ??
              String(bridgedFrom.originChainId),
            sourceTxHash: null,
          };
          return { ...m, event: { ...m.event, ...payers, ...(bridge && { bridge }) } };
        }),
      );
      const feeLegPayers = await Promise.all(
        feeLegs.map(async (m) => ({
          ...m,
          event: { ...m.event, ...payersOnly(await deps.source.payers(m.event)) },
        })),
      );
      const paymentBlocks = new Map(
        [...withPayers, ...feeLegPayers].map((m) => [m.event.blockNumber, m.event.blockHash]),
      );
      for (const log of logs) paymentBlocks.set(log.blockNumber, log.blockHash);
      paymentBlocks.set(to, toHash);
      const now = deps.clock.now();
      recorded += await recordPayments(
        deps.db,
        { sink: deps.sink, now, also: (tx) => recordWatched(tx, logs, now) },
        withPayers,
        {
          network: deps.network,
          lastBlock: to,
          blocks: [...paymentBlocks].map(([number, hash]) => ({ number, hash })),
        },
        feeLegPayers,
      );
      deps.onProgress?.({ head, target, indexed: to });
      from = to + 1n;
      if (span < ceiling) span = span * 2n > ceiling ? ceiling : span * 2n;
    }
    if (recorded > 0) {
      log.info({ recorded, scannedTo: String(target) }, 'payments recorded');
      deps.onRecorded?.();
    }
    return { scannedTo: target, recorded, rolledBack };
  };

  const poller = createPoller({
    logger: log,
    lock: deps.lock,
    round: async () => {
      await tick();
      return false;
    },
    failure: { level: 'warn', message: 'indexer pass failed; retrying' },
  });

  return {
    network: deps.network,
    tick,
    start: (pollMs) => poller.start(pollMs),
    stop: () => poller.stop(),
  };
}

/** Who paid, without what else the source found. */
function payersOnly({ payerAddress, payerEoaAddress }: Payers): Payers {
  return { payerAddress, payerEoaAddress };
}
