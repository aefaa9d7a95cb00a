import type { Logger } from 'pino';
import type { Clock } from '../base/clock.ts';
import { createPoller } from '../base/poller.ts';
import type { SecretBox } from '../base/secret-box.ts';
import type { WebhookConfig } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import { createAttempt } from './attempt.ts';
import {
  type AttemptRecord,
  type Claimed,
  claimDue,
  failOrphaned,
  recordAttempts,
} from './claims.ts';

/** Sends in flight at most, and deliveries claimed by one `runOnce`. */
const CONCURRENCY = 20;
/**
 * A started dispatcher claims this many at once, as soon as fewer than `REFILL` claimed rows
 * wait for a slot: a claim is a write the database must flush, as slow as a hundred sends on
 * loopback, so the next batch is asked for while three rounds still wait (with one round
 * waiting, the sends stood idle for a third of the time, waiting for claims).
 */
const CLAIM = 5 * CONCURRENCY;
const REFILL = 3 * CONCURRENCY;
/**
 * A claim outlives this many attempts' timeouts, plus a margin; after it another dispatcher may
 * retry. Fewer than `REFILL + CLAIM` rows wait for a slot, so a claimed row waits out at most
 * eight timeouts before its own attempt starts.
 */
const LEASE_TIMEOUTS = (REFILL + CLAIM) / CONCURRENCY + 1;
/**
 * While sends are out, finished attempts are recorded once this many wait (or after
 * `RECORD_WAIT_MS`): a statement costs a round trip, a plan and a commit whatever its size.
 */
const RECORD_BATCH = CLAIM;
/**
 * Finished attempts wait this long at most for others to be recorded with, while sends are
 * still out (a receiver slow to answer holds its slot for up to the timeout).
 */
const RECORD_WAIT_MS = 100;
/** Records at once at a burst's end (the queue pool keeps a connection for the claim). */
const MAX_RECORDS = 2;
const LEASE_MARGIN_MS = 30_000;

/**
 * Deliveries written already claimed, handed straight to this process's dispatcher: a payment's
 * webhook leaves as soon as the transaction that records it commits, without a claim.
 */
export interface DeliveryHandoff {
  /**
   * Room for `rows` new deliveries, and the lease to write them with; null when they should
   * wait to be claimed. What is granted is held until `offer` or `release`.
   */
  lease(now: Date, rows: number): Date | null;
  /** Deliveries written with a granted lease, once their transaction committed. */
  offer(rows: readonly Claimed[]): void;
  /** Gives back the room of `rows` leased in a transaction that rolled back. */
  release(rows: number): void;
}

export interface Dispatcher extends DeliveryHandoff {
  /** Claims one batch of what is due, sends it, records it; resolves with the number claimed. */
  runOnce(): Promise<number>;
  /** Sends continuously; looks for due rows every `pollMs` and right away after `wake`. */
  start(pollMs: number): void;
  /** Asks for a claim soon (new deliveries were written). */
  wake(): void;
  /** Claims nothing more; resolves when what was claimed is sent and recorded. */
  stop(): Promise<void>;
}

/**
 * Sends the outbox. Due rows are claimed with a lease, together with their endpoints, in one
 * statement; the HTTP calls happen after the claim commits, so no transaction stays open across
 * the network; attempts are recorded in one statement per batch. A crash mid-send leaves the
 * lease to expire and the row to be retried: delivery is at-least-once, and the delivery id
 * lets receivers drop the duplicate.
 *
 * Started, the dispatcher keeps up to `CONCURRENCY` sends in flight, fed from the rows it
 * claimed; it claims the next batch while three rounds' worth still wait, and records
 * finished attempts, in batches, while others are still out: a slow receiver holds one slot,
 * not a round, and the database's work overlaps the network's.
 */
export function createDispatcher(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  secretBox: SecretBox;
  config: WebhookConfig;
  random?: () => number;
  onAttempt?: (status: AttemptRecord['status']) => void; // counted by the metrics (attempt.ts)
}): Dispatcher {
  const leaseFrom = (now: Date) =>
    new Date(now.getTime() + LEASE_TIMEOUTS * deps.config.timeoutMs + LEASE_MARGIN_MS);

  /** Claims up to `limit` due rows, failing those of dead endpoints; returns every row claimed. */
  const claim = async (limit: number): Promise<Claimed[]> => {
    const now = deps.clock.now();
    const claimed = await claimDue(deps.db, now, leaseFrom(now), limit);
    await failOrphaned(
      deps.db,
      claimed.filter((row) => !row.live).map((row) => row.id),
    );
    return claimed;
  };

  const attempt = createAttempt(deps);

  const runOnce = async (): Promise<number> => {
    const claimed = await claim(CONCURRENCY);
    const live = claimed.filter((row) => row.live);
    await recordAttempts(deps.db, await Promise.all(live.map(attempt)));
    return claimed.length;
  };

  // The started dispatcher: a pool of sends fed by claims into a queue, drained by records.
  let stopped = true;
  let inFlight = 0;
  /** Claimed, waiting for a free slot. */
  const queued: Claimed[] = [];
  /** Rows leased to transactions still open, to be offered (or released) when they end. */
  let promised = 0;
  let claiming: Promise<void> | undefined;
  /** Rows the running claim may add to the queue. */
  let claimingRows = 0;
  /** The last claim found less than it asked for: claim again only on a wake or a poll. */
  let drained = false;
  /** A wake came while a claim was running: the claim may have missed what it announced. */
  let woken = false;
  let finished: AttemptRecord[] = [];
  /** Records running. */
  let recordings = 0;
  /** Settles when the pool is empty and everything is recorded (for `stop`). */
  let idle: { promise: Promise<void>; resolve: () => void } | undefined;

  const settleIdle = () => {
    const busy = inFlight > 0 || queued.length > 0 || claiming || recordings > 0;
    if (!busy && finished.length === 0) idle?.resolve();
  };

  let recordTimer: NodeJS.Timeout | undefined;
  /** What finished has waited `RECORD_WAIT_MS` for a batch: it is recorded as it is. */
  let waited = false;
  const record = () => {
    if (finished.length === 0) return settleIdle();
    // The last sends of a burst: nothing waits for a slot and no claim is coming.
    const ending = queued.length === 0 && (drained || stopped) && !claiming;
    // While sends are still out, wait for a batch (or a moment): fewer, larger writes.
    if (inFlight > 0 && !ending && !waited && finished.length < RECORD_BATCH) {
      recordTimer ??= setTimeout(() => {
        recordTimer = undefined;
        waited = true;
        record();
      }, RECORD_WAIT_MS);
      return;
    }
    // One record at a time while the queue still feeds sends: its work overlaps theirs. At a
    // burst's end, what finished is recorded at once, beside a record still running, so the
    // last sends wait for a statement of their own size, not for the one before as well.
    if (recordings >= (ending ? MAX_RECORDS : 1)) return;
    clearTimeout(recordTimer);
    recordTimer = undefined;
    const batch = finished;
    finished = [];
    waited = false;
    recordings += 1;
    void recordAttempts(deps.db, batch)
      .catch((error: unknown) => {
        // The rows keep their leases and are sent again when these run out.
        deps.logger.error({ err: error }, 'recording webhook attempts failed');
      })
      .finally(() => {
        recordings -= 1;
        record();
      });
  };

  const launch = (row: Claimed) => {
    inFlight += 1;
    void attempt(row)
      .then(
        (done) => void finished.push(done),
        // Not recorded: the lease runs out and the delivery is sent again.
        (error: unknown) => deps.logger.error({ err: error }, 'webhook attempt failed'),
      )
      .finally(() => {
        inFlight -= 1;
        soon();
      });
  };

  /**
   * After the sends that finished in this turn of the event loop: refill their slots together,
   * then record. Refilled first, the next sends are out when `record` looks, so it waits for a
   * batch; the other way round, a round of sends that finished together found none in flight
   * and was recorded on its own, a statement for every twenty deliveries.
   */
  let scheduled = false;
  const soon = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
      record();
    });
  };

  /** Fills free slots from the queue; claims the next batch before the queue runs dry. */
  const pump = () => {
    // Rows already claimed are sent even after stop: their leases would only delay them.
    while (inFlight < CONCURRENCY && queued.length > 0) launch(queued.shift() as Claimed);
    if (stopped || claiming || drained || queued.length + promised >= REFILL) return;
    woken = false;
    // From idle, a round's worth first: the sends start after a claim a fifth the size.
    const size = inFlight === 0 && queued.length === 0 ? CONCURRENCY : CLAIM;
    claimingRows = size;
    claiming = claim(size)
      .then((rows) => {
        if (rows.length < size && !woken) drained = true;
        queued.push(...rows.filter((row) => row.live));
      })
      .catch((error: unknown) => {
        deps.logger.error({ err: error }, 'claiming webhook deliveries failed');
        drained = true;
      })
      .finally(() => {
        claiming = undefined;
        claimingRows = 0;
        pump();
        settleIdle();
      });
  };

  // A poll claims again even after a claim that came back short: retries come due, and other
  // processes write deliveries this one is not woken for.
  const poller = createPoller({
    logger: deps.logger,
    round: async () => {
      drained = false;
      pump();
      return false;
    },
    failure: { level: 'error', message: 'polling webhook deliveries failed' },
  });

  return {
    runOnce,
    start(pollMs) {
      stopped = false;
      poller.start(pollMs);
    },
    wake() {
      woken = true;
      drained = false;
      pump();
    },
    lease(now, rows) {
      // Only a running dispatcher with room takes rows it did not claim, counting what a
      // running claim may still add: the queue then never holds more than REFILL + CLAIM rows
      // (a claim starts below REFILL), which the lease covers.
      if (stopped || queued.length + promised + claimingRows + rows > CLAIM) return null;
      promised += rows;
      return leaseFrom(now);
    },
    offer(rows) {
      promised = Math.max(0, promised - rows.length);
      if (stopped) return; // their leases run out and another dispatcher claims them
      queued.push(...rows);
      pump();
    },
    release(rows) {
      promised = Math.max(0, promised - rows);
    },
    async stop() {
      stopped = true;
      await poller.stop();
      if (idle) return idle.promise;
      let resolve: () => void = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      idle = { promise, resolve };
      settleIdle();
      await promise;
      idle = undefined;
    },
  };
}
