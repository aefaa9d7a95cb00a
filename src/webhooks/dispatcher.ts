import type { Logger } from 'pino';
import type { Clock } from '../base/clock.ts';
import { createPoller } from '../base/poller.ts';
import type { SecretBox } from '../base/secret-box.ts';
import type { WebhookConfig } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import { createAttempt } from './attempt.ts';
import {
  type AttemptRecord,
  type ClaimBudgets,
  type Claimed,
  claimDue,
  deferEndpoint,
  failOrphaned,
  handBack,
  recordAttempts,
} from './claims.ts';
import type { DeliveryHandoff } from './handoff.ts';
import { CLAIM, CONCURRENCY, claimLeaseMs, LEASE_MARGIN_MS, REFILL } from './lease.ts';
import { createRecorder } from './recorder.ts';
import { cappedBy, createScheduler } from './scheduler.ts';

export interface Dispatcher extends DeliveryHandoff {
  /** Claims one batch of what is due, sends it, records it; resolves with the number claimed. */
  runOnce(): Promise<number>;
  /** Sends continuously; looks for due rows every `pollMs` and right away after `wake`. */
  start(pollMs: number): void;
  /** Asks for a claim soon (new deliveries were written). */
  wake(): void;
  /**
   * Claims nothing more and hands back what waits for a slot (for another process to send at
   * once); resolves when the sends in flight (each within the attempt timeout) are recorded.
   */
  stop(): Promise<void>;
}

/**
 * Sends the outbox. Due rows are claimed with a lease, together with their endpoints, in one
 * statement; the HTTP calls happen after the claim commits, so no transaction stays open across
 * the network; attempts are recorded in one statement per batch. A crash mid-send leaves the
 * lease to expire and the row to be retried: delivery is at-least-once, and the delivery id
 * lets receivers drop the duplicate.
 *
 * Started, the dispatcher keeps up to `CONCURRENCY` sends in flight, in the turns of fair shares
 * (scheduler.ts), fed from the rows it claimed; it claims the next batch while three rounds'
 * worth still wait, and records finished attempts in batches (recorder.ts) while others are out.
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
  const leaseFrom = (now: Date) => new Date(now.getTime() + claimLeaseMs(deps.config.timeoutMs));

  /** Claims up to `limit` due rows, failing those of dead endpoints; returns every row claimed. */
  const claim = async (limit: number, budgets?: ClaimBudgets): Promise<Claimed[]> => {
    const now = deps.clock.now();
    const claimed = await claimDue(deps.db, now, leaseFrom(now), limit, budgets);
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
  /** Claimed, waiting for a free slot, in the order the scheduler's turns give. */
  const scheduler = createScheduler({ timeoutMs: deps.config.timeoutMs, slots: CONCURRENCY });
  /** Rows leased to transactions still open, to be offered (or released) when they end. */
  let promised = 0;
  let claiming: Promise<void> | undefined;
  /** Rows the running claim may add to the queue. */
  let claimingRows = 0;
  /** The last claim found less than it asked for: claim again only on a wake or a poll. */
  let drained = false;
  /** A wake came while a claim was running: the claim may have missed what it announced. */
  let woken = false;
  /**
   * Endpoints the last claim took all it could of: the next claim waits until one of them
   * has room again (or a wake or a poll), rather than ask at once for what it cannot take.
   */
  const capped = new Set<string>();
  /** Records, hand-backs and back-offs running. */
  let writes = 0;
  /** Settles when the pool is empty and everything is recorded (for `stop`). */
  let idle: { promise: Promise<void>; resolve: () => void } | undefined;

  const settleIdle = () => {
    const busy = inFlight > 0 || scheduler.queued > 0 || claiming || writes > 0;
    if (!busy && recorder.waiting === 0) idle?.resolve();
  };

  /** A write beside the sends, counted until it ends (`stop` waits for it); never rejects. */
  const write = (what: string, run: () => Promise<void>) => {
    writes += 1;
    void run()
      .catch((error: unknown) => deps.logger.error({ err: error }, `${what} failed`))
      .finally(() => {
        writes -= 1;
        settleIdle();
      });
  };
  /**
   * Rows this dispatcher will not send: their leases end now, or at `until` for a back-off.
   * Once given back they may be due again, and a claim that ran meanwhile missed them: the
   * dispatcher looks again rather than wait for its next poll.
   */
  const giveBack = (rows: readonly Claimed[], until: Date | null = null) => {
    // Not given back (the write failed): their leases run out and they are claimed again.
    if (rows.length > 0)
      write('handing back webhook deliveries', async () => {
        await handBack(deps.db, rows, until);
        drained = false;
        soon();
      });
  };

  const recorder = createRecorder({
    db: deps.db,
    write,
    sends: () => ({
      inFlight,
      // The last sends of a burst: nothing waits for a slot and no claim is coming.
      ending: scheduler.queued === 0 && (drained || stopped) && !claiming,
    }),
    onIdle: () => settleIdle(),
  });

  const launch = (row: Claimed) => {
    inFlight += 1;
    let done: AttemptRecord | undefined;
    void attempt(row)
      .then(
        (outcome) => {
          done = outcome;
          recorder.push(outcome);
        },
        // Not recorded: the lease runs out and the delivery is sent again.
        (error: unknown) => deps.logger.error({ err: error }, 'webhook attempt failed'),
      )
      .finally(() => {
        inFlight -= 1;
        const { dropped, backOff } = scheduler.finished(row, done);
        const until = backOff ? (done?.nextAttemptAt ?? null) : null;
        giveBack(dropped, until);
        if (until !== null) {
          deps.logger.warn(
            { webhookId: row.webhook_id, until: until.toISOString() },
            'webhook endpoint answered nothing twice in a row; its deliveries wait for its retry',
          );
          write('deferring a silent endpoint', () =>
            deferEndpoint(deps.db, row.webhook_id, deps.clock.now(), until),
          );
        }
        if (capped.has(row.webhook_id) && scheduler.roomFor(row.webhook_id)) {
          capped.delete(row.webhook_id);
        }
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
      recorder.flush();
    });
  };

  /**
   * Whether `row`'s lease could end before its attempt is sent and recorded (the lease's margin
   * covers the record and the clocks of other processes). Rows wait for a slot in turns, and
   * with many accounts' slow endpoints taking theirs, a row can wait out most of its lease:
   * sent then, another dispatcher could claim and send it at the same time.
   */
  const lapsing = (row: Claimed) =>
    row.leased_until_ms - deps.clock.now().getTime() < deps.config.timeoutMs + LEASE_MARGIN_MS;

  /** Fills free slots in the scheduler's turns; claims the next batch before the queue runs dry. */
  const pump = () => {
    if (stopped) return;
    const lapsed: Claimed[] = [];
    const back: Claimed[] = [];
    while (inFlight < CONCURRENCY) {
      const row = scheduler.next();
      if (row === undefined) break;
      if (lapsing(row)) {
        // Not sent under a lease this short: given back, it is claimed again with a new one.
        lapsed.push(row);
        back.push(row, ...scheduler.lapsed(row).dropped);
        continue;
      }
      launch(row);
    }
    if (lapsed.length > 0) {
      deps.logger.warn(
        { deliveries: lapsed.length },
        'webhook deliveries waited out most of their lease for a slot; handed back',
      );
      giveBack(back);
    }
    const waiting = scheduler.queued + promised;
    if (claiming || drained || capped.size > 0 || waiting >= REFILL) return;
    woken = false;
    // From idle, a round's worth first: the sends start after a claim a fifth the size.
    const size = inFlight === 0 && scheduler.queued === 0 ? CONCURRENCY : CLAIM;
    const budgets = scheduler.budgets();
    claimingRows = size;
    claiming = claim(size, budgets)
      .then((rows) => {
        const live = rows.filter((row) => row.live);
        // A stop came while the claim ran: what it took goes back at once.
        if (stopped) return giveBack(live);
        for (const id of cappedBy(budgets, live)) capped.add(id);
        if (rows.length < size && capped.size === 0 && !woken) drained = true;
        scheduler.add(live);
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
      capped.clear();
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
      capped.clear();
      pump();
    },
    lease(now, rows) {
      // Only a running dispatcher with room takes rows it did not claim, counting what a
      // running claim may still add: the queue then never holds more than REFILL + CLAIM rows
      // (a claim starts below REFILL), which the lease covers.
      if (stopped || scheduler.queued + promised + claimingRows + rows > CLAIM) return null;
      promised += rows;
      return leaseFrom(now);
    },
    offer(rows) {
      promised = Math.max(0, promised - rows.length);
      // Stopped since the lease was granted: another process sends them at once.
      if (stopped) return giveBack(rows);
      scheduler.add(rows);
      pump();
    },
    release(rows) {
      promised = Math.max(0, promised - rows);
    },
    async stop() {
      stopped = true;
      await poller.stop();
      // What waits for a slot goes back now: another process sends it without waiting out
      // the lease, and nothing here sends it after.
      giveBack(scheduler.drain());
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
