import type { Clock } from '../clock.ts';
import type { LogStore } from './rate-limit.ts';

/** The rate limiter's store for one process: each caller's sliding log, in a Map. */

/** How often the memory store drops logs whose every hit has left the window. */
export const MEMORY_SWEEP_INTERVAL_MS = 10_000;
/**
 * Past this many callers the memory store forgets the least recently seen first, so memory
 * stays bounded (a log holds at most a budget of allowed and a budget of refused hits).
 */
export const MEMORY_MAX_KEYS = 10_000;

export interface MemoryStore extends LogStore {
  /** Callers held, idle or not (for tests of the sweeping). */
  size(): number;
}

interface MemoryLog {
  /** Times of allowed hits, oldest first, all within the window of the latest hit. */
  allowed: number[];
  /** Times of refused hits, likewise (only kept where a breach blocks). */
  refused: number[];
  windowMs: number;
  lastHitAt: number;
}

/** Drops the times that have left the window ending at `now`: (now - windowMs, now] stays. */
function prune(times: number[], now: number, windowMs: number): void {
  let stale = 0;
  while (stale < times.length && (times[stale] as number) <= now - windowMs) stale += 1;
  if (stale > 0) times.splice(0, stale);
}

/** One process's logs. Sweeping runs on hits, so an idle limiter holds no timer. */
export function createMemoryStore(deps: { clock: Clock; maxKeys?: number }): MemoryStore {
  const maxKeys = deps.maxKeys ?? MEMORY_MAX_KEYS;
  // Re-inserted on every hit, so the first entries are the least recently seen.
  const logs = new Map<string, MemoryLog>();
  const blocks = new Map<string, number>();
  let nextSweepAt = 0;
  const sweep = (now: number) => {
    for (const [key, log] of logs) if (log.lastHitAt <= now - log.windowMs) logs.delete(key);
    for (const [key, until] of blocks) if (until <= now) blocks.delete(key);
    nextSweepAt = now + MEMORY_SWEEP_INTERVAL_MS;
  };
  return {
    async hit({ key, now, limit, windowMs, blockMs, peek }) {
      if (now >= nextSweepAt) sweep(now);
      const blockedUntil = blocks.get(key);
      if (blockedUntil !== undefined && blockedUntil > now) {
        return { allowed: false, remaining: 0, resetMs: blockedUntil - now, blocked: true };
      }
      let log = logs.get(key);
      if (peek) {
        const times = (log?.allowed ?? []).filter((time) => time > now - windowMs);
        const first = times[0];
        return {
          allowed: times.length < limit,
          remaining: Math.max(0, limit - times.length),
          resetMs: first === undefined ? windowMs : first + windowMs - now,
          blocked: false,
        };
      }
      if (log === undefined) {
        // A flood of distinct callers (say, many IPs) must not grow memory without bound;
        // forgetting the least recently seen only gives that caller a fresh budget.
        if (logs.size >= maxKeys) logs.delete(logs.keys().next().value ?? '');
        log = { allowed: [], refused: [], windowMs, lastHitAt: now };
      }
      logs.delete(key);
      logs.set(key, log);
      log.lastHitAt = now;
      log.windowMs = windowMs;
      prune(log.allowed, now, windowMs);
      if (log.allowed.length < limit) {
        log.allowed.push(now);
        const oldest = log.allowed[0] as number;
        return {
          allowed: true,
          remaining: limit - log.allowed.length,
          resetMs: oldest + windowMs - now,
          blocked: false,
        };
      }
      const oldest = log.allowed[0] as number;
      if (blockMs > 0) {
        prune(log.refused, now, windowMs);
        log.refused.push(now);
        if (log.refused.length >= limit) {
          log.refused = [];
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
