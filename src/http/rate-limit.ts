import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { MaybePromise } from '../base/maybe.ts';
import type { RateLimits } from './budgets.ts';
import { createMemoryStore } from './rate-limit-memory-store.ts';
import type { HitResult, LogStore, WarnLogger } from './rate-limit-store.ts';

/**
 * Sliding-log request budgets: a hit is allowed while fewer than `limit` hits were allowed in
 * the `windowMs` before it, so no run of 60 seconds, wherever it starts, holds more than the
 * budget (a fixed window aligned to the minute lets twice the budget through across its
 * boundary). The log lives in memory (one process) or, when `REDIS_URL` is set, in Redis,
 * where every instance of the service draws on the same budget. Times are the callers' clock;
 * instances whose clocks disagree by a few seconds only move a slot's release by as much.
 */

export const RATE_LIMIT_WINDOW_MS = 60_000;
/**
 * A sustained breach: a caller refused as many times as its budget within one window (so,
 * one that keeps going to twice its rate) is blocked for this long. The published figure for
 * client ID + IP traffic.
 */
export const BREACH_BLOCK_MS = 5 * 60_000;
const DEFAULT_KEY_PREFIX = 'payreq:ratelimit:';

export interface RateLimitOptions {
  readonly limits?: Partial<RateLimits>;
}

/** Answers are ready at once from the memory store, and a promise from Redis. */
export interface RateLimiter {
  /** `blockMs`: block the key that long once it is refused `limit` times within a window. */
  hit(key: string, limit: number, windowMs: number, blockMs?: number): MaybePromise<HitResult>;
  /** Whether a hit would be allowed now, counting nothing. */
  peek(key: string, limit: number, windowMs: number): MaybePromise<HitResult>;
  close(): Promise<void>;
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number, headers: Record<string, string>) {
    super('rate_limited', `Too many requests; retry after ${retryAfterSeconds} seconds`, {
      headers: { ...headers, 'retry-after': String(retryAfterSeconds) },
    });
  }
}

/** The `ratelimit-*` headers of an answer, the reset in whole seconds rounded up. */
export function rateLimitHeaders(limit: number, result: HitResult): Record<string, string> {
  return {
    'ratelimit-limit': String(limit),
    'ratelimit-remaining': String(result.remaining),
    'ratelimit-reset': String(Math.ceil(result.resetMs / 1_000)),
  };
}

export function createRateLimiter(deps: {
  redisUrl: string | null;
  clock: Clock;
  logger: WarnLogger;
  keyPrefix?: string;
}): RateLimiter {
  const prefix = deps.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const store =
    deps.redisUrl === null
      ? createMemoryStore({ clock: deps.clock })
      : redisStore({ url: deps.redisUrl, clock: deps.clock, logger: deps.logger });
  const logHit = (key: string, limit: number, windowMs: number, blockMs: number, peek: boolean) =>
    store.hit({
      // One hash tag per caller: its keys sit on one node of a Redis Cluster.
      key: `${prefix}{${key}}`,
      now: deps.clock.now().getTime(),
      limit,
      windowMs,
      blockMs,
      peek,
    });
  return {
    hit: (key, limit, windowMs, blockMs) => logHit(key, limit, windowMs, blockMs ?? 0, false),
    peek: (key, limit, windowMs) => logHit(key, limit, windowMs, 0, true),
    close: () => store.close(),
  };
}

/**
 * The Redis store, its module (and ioredis) loaded only when REDIS_URL is set: a process
 * without Redis never pays for the client. It connects as soon as it is made, as before.
 */
function redisStore(options: { url: string; clock: Clock; logger: WarnLogger }): LogStore {
  const store = import('./rate-limit-redis-store.ts').then(({ createRedisStore }) =>
    createRedisStore(options),
  );
  return {
    hit: async (args) => (await store).hit(args),
    close: async () => (await store).close(),
  };
}
