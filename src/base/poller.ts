import type { Logger } from 'pino';

/** After a failed round the next waits this many times longer than the last wait. */
const BACKOFF_FACTOR = 2;
/** A failing loop still retries at least this often (or at its interval, when longer), in ms. */
const MAX_BACKOFF_MS = 60_000;

/**
 * "Only one process does this" (src/db/leader-lock.ts's LeaderLock is one): taken before each
 * round, released when the poller stops.
 */
export interface PollerLock {
  /** True when this process holds the lock (taking it if it is free). */
  acquire(): Promise<boolean>;
  release(): Promise<void>;
}

export interface Poller {
  /**
   * Runs a round now, then one `pollMs` after each (the interval given here, else the one the
   * poller was made with). Starting a started poller only changes its interval.
   */
  start(pollMs?: number): void;
  /** Runs a round now, or right after the one in progress; nothing once stopped. */
  wake(): void;
  /**
   * Runs no more rounds and resolves once the one in progress has finished and the lock (if
   * any) is released. Safe to call twice, or before `start`; `start` again resumes.
   */
  stop(): Promise<void>;
}

/**
 * A background loop: rounds of `round`, one at a time, `pollMs` apart. A round that resolves
 * `true` stopped at a bound of its own with work left, and the next follows at once, on a
 * fresh timer so the event loop runs between them. A round that throws is logged, with
 * `failure`, and the next waits longer each time (`BACKOFF_FACTOR`, up to `MAX_BACKOFF_MS`),
 * until one succeeds. With a `lock`, a round runs only while this process holds it: while
 * another does, the round is skipped and asked again at the next interval.
 */
export function createPoller(deps: {
  logger: Logger;
  /** One round; resolves `true` when work is left that the next round should do at once. */
  round(): Promise<boolean>;
  /** How a failed round is logged: the error goes with it as `err`. */
  failure: { readonly level: 'warn' | 'error'; readonly message: string };
  /** The interval when `start` is given none, in ms. */
  pollMs?: number;
  lock?: PollerLock;
}): Poller {
  let pollMs = deps.pollMs;
  let started = false;
  let timer: NodeJS.Timeout | undefined;
  let soon: NodeJS.Immediate | undefined;
  /** The round in progress; it never rejects. */
  let current: Promise<void> | undefined;
  /** A wake came during the round in progress. */
  let woken = false;
  let failures = 0;

  const interval = (): number => {
    if (pollMs === undefined) throw new Error('a poller needs an interval: give pollMs');
    return pollMs;
  };

  /** The wait before the next round, once this one ends. */
  const attempt = async (): Promise<number> => {
    try {
      if (deps.lock && !(await deps.lock.acquire())) {
        // Another process does the work: a back-off this one built up no longer applies.
        failures = 0;
        return interval();
      }
      const more = await deps.round();
      failures = 0;
      return more ? 0 : interval();
    } catch (error) {
      failures += 1;
      deps.logger[deps.failure.level]({ err: error }, deps.failure.message);
      const ms = interval();
      return Math.min(ms * BACKOFF_FACTOR ** failures, Math.max(ms, MAX_BACKOFF_MS));
    }
  };

  const cancel = () => {
    clearTimeout(timer);
    timer = undefined;
    if (soon) clearImmediate(soon);
    soon = undefined;
  };

  const schedule = (ms: number) => {
    cancel();
    // The process ends with its server, not with its background loops. A round due now runs
    // on the next turn of the event loop (a timer of 0 waits a millisecond at least, a good
    // share of the time from a new block to its webhook).
    if (ms === 0) soon = setImmediate(run).unref();
    else timer = setTimeout(run, ms).unref();
  };

  const run = () => {
    cancel();
    if (!started || current) return;
    woken = false;
    current = attempt().then((wait) => {
      current = undefined;
      if (started) schedule(woken ? 0 : wait);
    });
  };

  return {
    start(ms) {
      if (ms !== undefined) pollMs = ms;
      interval();
      if (started) return;
      started = true;
      run();
    },
    wake() {
      if (!started) return;
      if (current) woken = true;
      else schedule(0);
    },
    async stop() {
      started = false;
      cancel();
      await current;
      // Started again meanwhile: the lock is still wanted.
      if (!started) await deps.lock?.release();
    },
  };
}
