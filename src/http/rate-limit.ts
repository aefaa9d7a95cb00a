import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';

/**
 * Sliding-log request budgets: a hit is allowed while fewer than `limit` hits were allowed in
 * the `windowMs` before it, so no run of 60 seconds, wherever it starts, holds more than the
 * budget (a fixed window aligned to the minute lets twice the budget through across its
 * boundary). The log lives in memory (one process) or, when `REDIS_URL` is set, in Redis,
 * where every instance of the service draws on the same budget. Times are the callers' clock;
 * instances whose clocks disagree by a few seconds only move a slot's release by as much.
 */

export const RATE_LIMIT_WINDOW_MS = 60_000;
/** How often the memory store drops logs whose every hit has left the window. */
export const MEMORY_SWEEP_INTERVAL_MS = 10_000;
/**
 * Past this many callers the memory store forgets the least recently seen first, so memory
 * stays bounded (a log holds at most a budget of allowed and a budget of refused hits).
 */
export const MEMORY_MAX_KEYS = 10_000;
/**
 * A sustained breach: a caller refused as many times as its budget within one window (so,
 * one that keeps going to twice its rate) is blocked for this long. The published figure for
 * client ID + IP traffic.
 */
export const BREACH_BLOCK_MS = 5 * 60_000;
/** A Redis round trip slower than this counts as Redis being down (the request is allowed). */
const REDIS_COMMAND_TIMEOUT_MS = 200;
const REDIS_CONNECT_TIMEOUT_MS = 2_000;
/** While Redis stays unreachable, one warning per this interval, not one per request. */
const FAIL_OPEN_LOG_INTERVAL_MS = 60_000;
const DEFAULT_KEY_PREFIX = 'payreq:ratelimit:';

/**
 * Requests per minute by kind of caller. Only the client-ID figures are published (per client
 * ID + IP: 120/300/600/1200 by tier, 300 by default); there is no published figure for API
 * keys, so theirs is ours: as generous as the highest client-ID tier, since a key is a server's.
 */
export interface RateLimits {
  /** `x-client-id` traffic (alone or with an orchestrator key), per client ID + IP. */
  readonly clientId: number;
  readonly apiKey: number;
  readonly session: number;
  /** Per orchestrator: the principal carries the orchestrator, not which of its keys was used. */
  readonly orchestratorKey: number;
  /** Unauthenticated `/v1/auth/*` (sign-in, registration, wallet challenges), per IP. */
  readonly authEndpoint: number;
  /** Credentials that match nothing (unknown key, client ID or orchestrator key), per IP. */
  readonly failedCredentials: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  clientId: 300,
  apiKey: 1_200,
  session: 600,
  orchestratorKey: 1_200,
  authEndpoint: 30,
  failedCredentials: 60,
};

export interface RateLimitOptions {
  readonly limits?: Partial<RateLimits>;
}

export interface HitResult {
  readonly allowed: boolean;
  /** Hits the caller may still make now (0 once refused). */
  readonly remaining: number;
  /**
   * Until the oldest counted hit leaves the window, so one more hit is allowed (a full window
   * for a caller's first hit); for a blocked caller, until the block ends.
   */
  readonly resetMs: number;
  /** The caller is serving a block for a sustained breach. */
  readonly blocked: boolean;
}

export interface RateLimiter {
  /** `blockMs`: block the key that long once it is refused `limit` times within a window. */
  hit(key: string, limit: number, windowMs: number, blockMs?: number): Promise<HitResult>;
  /** Whether a hit would be allowed now, counting nothing. */
  peek(key: string, limit: number, windowMs: number): Promise<HitResult>;
  close(): Promise<void>;
}

/** Pino's and Fastify's loggers both fit. */
export interface WarnLogger {
  warn(details: object, message: string): void;
}

/** One hit at `now` against a key's log; the same rule in every store. */
interface LogHit {
  readonly key: string;
  readonly now: number;
  readonly limit: number;
  readonly windowMs: number;
  /** Block the key this long once it is refused `limit` times within a window; 0: never. */
  readonly blockMs: number;
  /** Only look: answer as for a hit, recording nothing. */
  readonly peek?: boolean;
}

interface LogStore {
  hit(hit: LogHit): Promise<HitResult>;
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
      : createRedisStore({ url: deps.redisUrl, clock: deps.clock, logger: deps.logger });
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

/**
 * The same rule in one script, so a hit is one atomic round trip whatever the number of
 * instances: KEYS are the allowed log, the refused log and the block (sorted sets scored by
 * time, and a string holding the block's end on the callers' clock). ARGV: now, window,
 * limit, block duration (0: never blocks), a member unique to this hit, and '1' to only look. Expiries only
 * reclaim memory; they are doubled so that an instance whose clock runs ahead cannot see a
 * log expire before the others are done with it. Answers {allowed, remaining, resetMs, blocked}.
 */
const HIT_SCRIPT = `
local now = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local blockMs = tonumber(ARGV[4])
if blockMs > 0 then
  local blockedUntil = tonumber(redis.call('GET', KEYS[3]) or '0')
  if blockedUntil > now then return {0, 0, blockedUntil - now, 1} end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
local count = redis.call('ZCARD', KEYS[1])
if ARGV[6] == '1' then
  local resetMs = windowMs
  if count > 0 then
    resetMs = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]) + windowMs - now
  end
  if count < limit then return {1, limit - count, resetMs, 0} end
  return {0, 0, resetMs, 0}
end
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[1], 2 * windowMs)
  local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  return {1, limit - count - 1, oldest + windowMs - now, 0}
end
local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
if blockMs > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - windowMs)
  if redis.call('ZCARD', KEYS[2]) + 1 >= limit then
    redis.call('DEL', KEYS[2])
    redis.call('SET', KEYS[3], tostring(now + blockMs), 'PX', 2 * blockMs)
    return {0, 0, blockMs, 1}
  end
  redis.call('ZADD', KEYS[2], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[2], 2 * windowMs)
end
return {0, 0, oldest + windowMs - now, 0}`;

type HitScript = (
  allowedLog: string,
  refusedLog: string,
  block: string,
  ...args: (string | number)[]
) => Promise<unknown>;

/**
 * Rejects when `work` has not settled `ms` after the call. The check waits one more turn of
 * the event loop after the timer fires, so that replies already received are read first: under
 * a burst the process itself is slow to read its socket, and that is not Redis being down (a
 * plain timer here failed a burst of 301 requests open).
 */
function answerWithin<T>(ms: number, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!settled) reject(new Error(`Redis did not answer within ${ms} ms`));
        }),
      ms,
    );
    work.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * Fails open: while Redis is unreachable or slow, every hit is allowed. A rate limiter
 * protects the API; it must not be the thing that takes it down. The outage is logged at most
 * once per minute, and its end once.
 */
function createRedisStore(deps: { url: string; clock: Clock; logger: WarnLogger }): LogStore {
  const client = new Redis(deps.url, {
    // A lost connection fails what is queued at once instead of holding requests until it
    // comes back; a slow answer is bounded by `answerWithin`.
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
  });
  // EVALSHA: the script's text goes to Redis once per connection, not with every hit.
  client.defineCommand('payreqRateLimitHit', { numberOfKeys: 3, lua: HIT_SCRIPT });
  const hitScript = (
    client as unknown as { payreqRateLimitHit: HitScript }
  ).payreqRateLimitHit.bind(client);
  // Members must differ between hits of the same millisecond, across instances too.
  const instance = randomBytes(6).toString('hex');
  let sequence = 0;
  let lastWarnedAt: number | null = null;
  const warn = (error: unknown) => {
    const now = deps.clock.now().getTime();
    if (lastWarnedAt !== null && now - lastWarnedAt < FAIL_OPEN_LOG_INTERVAL_MS) return;
    lastWarnedAt = now;
    const message = error instanceof Error ? error.message : String(error);
    deps.logger.warn(
      { err: { message } },
      'rate limiter: Redis unavailable, allowing requests unlimited until it answers',
    );
  };
  const recovered = () => {
    if (lastWarnedAt === null) return;
    lastWarnedAt = null;
    deps.logger.warn({}, 'rate limiter: Redis answers again, limiting requests');
  };
  // Without a listener ioredis prints every reconnection failure to the console.
  client.on('error', warn);
  return {
    async hit({ key, now, limit, windowMs, blockMs, peek }) {
      const open = { allowed: true, remaining: limit, resetMs: windowMs, blocked: false };
      // Reconnecting: answer now rather than queue behind a connection that is known to be down.
      if (client.status === 'reconnecting' || client.status === 'end') {
        warn(new Error(`Redis connection is ${client.status}`));
        return open;
      }
      sequence += 1;
      try {
        const [allowed, remaining, resetMs, blocked] = (await answerWithin(
          REDIS_COMMAND_TIMEOUT_MS,
          hitScript(
            `${key}:allowed`,
            `${key}:refused`,
            `${key}:block`,
            now,
            windowMs,
            limit,
            blockMs,
            `${now}:${instance}:${sequence}`,
            peek ? '1' : '0',
          ),
        )) as [number, number, number, number];
        recovered();
        return {
          allowed: allowed === 1,
          remaining: Number(remaining),
          resetMs: Number(resetMs),
          blocked: blocked === 1,
        };
      } catch (error) {
        warn(error);
        return open;
      }
    },
    async close() {
      if (client.status === 'ready') {
        await client.quit().catch(() => client.disconnect());
      } else {
        client.disconnect();
      }
    },
  };
}
