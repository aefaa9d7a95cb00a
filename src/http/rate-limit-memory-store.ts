import type { Clock } from '../base/clock.ts';
import type { LogStore } from './rate-limit-store.ts';

/** The rate limiter's store for one process: each caller's sliding log, in a Map. */

/** How often the memory store drops logs whose every hit has left the window. */
export const MEMORY_SWEEP_INTERVAL_MS = 10_000;
/**
 * Past this many callers the memory store forgets the least recently seen first, so memory
 * stays bounded (a log holds at most a budget of allowed and a budget of refused hits).
 */
const MEMORY_MAX_KEYS = 10_000;

export interface MemoryStore extends LogStore {
  /** Callers held, idle or not (for tests of the sweeping). */
  size(): number;
}

interface MemoryLog {
  /** Times of allowed hits, oldest first, all within the window of the latest hit. */
  allowed: Times;
  /** Times of refused hits, likewise (only kept where a breach blocks). */
  refused: Times;
  windowMs: number;
  lastHitAt: number;
}

/**
 * Hit times, oldest first, each with how many hits it holds: a busy caller hits many times in
 * one millisecond, and at a budget of a million a minute a log of one entry per hit held a
 * million numbers and made the collector copy them (a tenth of the server's work on a cheap
 * route). Times leave from the front by moving `start`, and the arrays are compacted once half
 * of them is gone: removing from the front of a large array copies all of it.
 */
class Times {
  #times: number[] = [];
  #counts: number[] = [];
  #start = 0;
  /** Hits held from `start` on. */
  #length = 0;

  get length(): number {
    return this.#length;
  }

  get oldest(): number | undefined {
    return this.#times[this.#start];
  }

  push(time: number): void {
    const last = this.#times.length - 1;
    if (last >= this.#start && this.#times[last] === time) {
      this.#counts[last] = (this.#counts[last] as number) + 1;
    } else {
      this.#times.push(time);
      this.#counts.push(1);
    }
    this.#length += 1;
  }

  /** Drops the times that have left the window ending at `now`: (now - windowMs, now] stays. */
  prune(now: number, windowMs: number): void {
    const times = this.#times;
    while (this.#start < times.length && (times[this.#start] as number) <= now - windowMs) {
      this.#length -= this.#counts[this.#start] as number;
      this.#start += 1;
    }
    if (this.#start === times.length) {
      this.#times = [];
      this.#counts = [];
      this.#start = 0;
    } else if (this.#start > 1024 && this.#start * 2 > times.length) {
      this.#times = times.slice(this.#start);
      this.#counts = this.#counts.slice(this.#start);
      this.#start = 0;
    }
  }

  /** How many times fall after `since`, without changing the log. */
  countAfter(since: number): { count: number; first: number | undefined } {
    let index = this.#start;
    let count = this.#length;
    while (index < this.#times.length && (this.#times[index] as number) <= since) {
      count -= this.#counts[index] as number;
      index += 1;
    }
    return { count, first: this.#times[index] };
  }
}

/**
 * One process's logs. Sweeping runs on hits, so an idle limiter holds no timer. A hit is
 * answered at once, without a promise: it runs on every request.
 */
export function createMemoryStore(deps: { clock: Clock; maxKeys?: number }): MemoryStore {
  const maxKeys = deps.maxKeys ?? MEMORY_MAX_KEYS;
  // Moved to the end on every hit, so the first entries are the least recently seen.
  const logs = new Map<string, MemoryLog>();
  const blocks = new Map<string, number>();
  let nextSweepAt = 0;
  /** The key at the end of `logs`, the most recently seen. */
  let newest: string | undefined;
  const sweep = (now: number) => {
    for (const [key, log] of logs) if (log.lastHitAt <= now - log.windowMs) logs.delete(key);
    for (const [key, until] of blocks) if (until <= now) blocks.delete(key);
    nextSweepAt = now + MEMORY_SWEEP_INTERVAL_MS;
  };
  return {
    hit({ key, now, limit, windowMs, blockMs, peek }) {
      if (now >= nextSweepAt) sweep(now);
      const blockedUntil = blocks.get(key);
      if (blockedUntil !== undefined && blockedUntil > now) {
        return { allowed: false, remaining: 0, resetMs: blockedUntil - now, blocked: true };
      }
      let log = logs.get(key);
      if (peek) {
        const { count, first } = log?.allowed.countAfter(now - windowMs) ?? {
          count: 0,
          first: undefined,
        };
        return {
          allowed: count < limit,
          remaining: Math.max(0, limit - count),
          resetMs: first === undefined ? windowMs : first + windowMs - now,
          blocked: false,
        };
      }
      if (log === undefined) {
        // A flood of distinct callers (say, many IPs) must not grow memory without bound;
        // forgetting the least recently seen only gives that caller a fresh budget.
        if (logs.size >= maxKeys) logs.delete(logs.keys().next().value ?? '');
        log = { allowed: new Times(), refused: new Times(), windowMs, lastHitAt: now };
        logs.set(key, log);
        newest = key;
      } else if (key !== newest) {
        // Moved to the end, unless it is there already: a delete and a set on every hit of a
        // busy caller made the Map rebuild its table every few hits (a microsecond a request).
        logs.delete(key);
        logs.set(key, log);
        newest = key;
      }
      log.lastHitAt = now;
      log.windowMs = windowMs;
      log.allowed.prune(now, windowMs);
      if (log.allowed.length < limit) {
        log.allowed.push(now);
        const oldest = log.allowed.oldest as number;
        return {
          allowed: true,
          remaining: limit - log.allowed.length,
          resetMs: oldest + windowMs - now,
          blocked: false,
        };
      }
      const oldest = log.allowed.oldest as number;
      if (blockMs > 0) {
        log.refused.prune(now, windowMs);
        log.refused.push(now);
        if (log.refused.length >= limit) {
          log.refused = new Times();
          if (blocks.size >= maxKeys) blocks.delete(blocks.keys().next().value ?? '');
          blocks.set(key, now + blockMs);
          return { allowed: false, remaining: 0, resetMs: blockMs, blocked: true };
        }
      }
      return { allowed: false, remaining: 0, resetMs: oldest + windowMs - now, blocked: false };
    },
    async close() {
      logs.clear();
      blocks.clear();
    },
    size: () => logs.size,
  };
}
