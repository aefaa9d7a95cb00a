import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';

/**
 * Fixed-window request budgets, one window per minute. The counter lives in memory (one
 * process) or, when `REDIS_URL` is set, in Redis, where every instance of the service draws on
 * the same budget. Windows are aligned to the clock (`floor(now / windowMs)`), so processes whose
 * clocks agree share a window; a skew of a few seconds only shifts that one window boundary.
 */

export const RATE_LIMIT_WINDOW_MS = 60_000;
/** How often the memory store drops windows that have ended. */
export const MEMORY_SWEEP_INTERVAL_MS = 10_000;
/** Past this many live windows the memory store forgets the oldest first (memory stays bounded). */
export const MEMORY_MAX_WINDOWS = 100_000;
/**
 * A sustained breach: a caller refused as many times as its budget within one window (so, at
 * twice its rate) is blocked for this long, whatever the window. The published figure for
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
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  clientId: 300,
  apiKey: 1_200,
  session: 600,
  orchestratorKey: 1_200,
  authEndpoint: 30,
};

export interface RateLimitOptions {
  readonly limits?: Partial<RateLimits>;
}

export interface HitResult {
  readonly allowed: boolean;
  /** Hits left in this window (0 once refused). */
  readonly remaining: number;
  /** Until the window ends, or until the block ends for a blocked caller. */
  readonly resetMs: number;
  /** The caller is serving a block for a sustained breach. */
  readonly blocked: boolean;
}

export interface RateLimiter {
  /** `blockMs`: block the key that long once it has run to twice its limit in a window. */
  hit(key: string, limit: number, windowMs: number, blockMs?: number): Promise<HitResult>;
  close(): Promise<void>;
}

/** Pino's and Fastify's loggers both fit. */
export interface WarnLogger {
  warn(details: object, message: string): void;
}

/** A block to start once a window's count passes `after`. */
interface BlockRule {
  readonly key: string;
  readonly after: number;
  readonly forMs: number;
}

/**
 * Counts hits per window; `windowEnd` is when the window's count may be forgotten. With a
 * block rule, a blocked key is not counted: the answer is how long the block has left.
 */
interface CounterStore {
  increment(
    windowKey: string,
    windowEnd: number,
    windowMs: number,
    block?: BlockRule,
  ): Promise<{ count: number; blockedMs: number }>;
  close(): Promise<void>;
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number, headers: Record<string, string>) {
    super(429, 'rate_limited', `Too many requests; retry after ${retryAfterSeconds} seconds`, {
      headers: { ...headers, 'retry-after': String(retryAfterSeconds) },
    });
  }
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
  return {
    async hit(key, limit, windowMs, blockMs) {
      const now = deps.clock.now().getTime();
      const windowStart = now - (now % windowMs);
      const windowEnd = windowStart + windowMs;
      const block =
        blockMs === undefined
          ? undefined
          : { key: `${prefix}block:${key}`, after: 2 * limit, forMs: blockMs };
      const { count, blockedMs } = await store.increment(
        `${prefix}${key}:${windowStart}`,
        windowEnd,
        windowMs,
        block,
      );
      if (blockedMs > 0) return { allowed: false, remaining: 0, resetMs: blockedMs, blocked: true };
      return {
        allowed: count <= limit,
        remaining: Math.max(0, limit - count),
        resetMs: windowEnd - now,
        blocked: false,
      };
    },
    close: () => store.close(),
  };
}

export interface MemoryStore extends CounterStore {
  /** Windows held, ended or not (for tests of the sweeping). */
  size(): number;
}

/** One process's counters. Sweeping runs on hits, so an idle limiter holds no timer. */
export function createMemoryStore(deps: { clock: Clock; maxWindows?: number }): MemoryStore {
  const maxWindows = deps.maxWindows ?? MEMORY_MAX_WINDOWS;
  // Insertion order is window order, so the first entries are the oldest.
  const windows = new Map<string, { count: number; endsAt: number }>();
  const blocks = new Map<string, number>();
  let nextSweepAt = 0;
  return {
    async increment(windowKey, windowEnd, _windowMs, block) {
      const now = deps.clock.now().getTime();
      if (now >= nextSweepAt) {
        for (const [key, window] of windows) if (window.endsAt <= now) windows.delete(key);
        for (const [key, until] of blocks) if (until <= now) blocks.delete(key);
        nextSweepAt = now + MEMORY_SWEEP_INTERVAL_MS;
      }
      const blockedUntil = block && blocks.get(block.key);
      if (blockedUntil !== undefined && blockedUntil > now) {
        return { count: 0, blockedMs: blockedUntil - now };
      }
      let window = windows.get(windowKey);
      if (window === undefined) {
        // A flood of distinct keys (say, many IPs) must not grow memory without bound;
        // forgetting the oldest window only gives that caller a fresh budget.
        if (windows.size >= maxWindows) {
          const oldest = windows.keys().next().value;
          if (oldest !== undefined) windows.delete(oldest);
        }
        window = { count: 0, endsAt: windowEnd };
        windows.set(windowKey, window);
      }
      window.count += 1;
      if (block && window.count > block.after) {
        if (blocks.size >= maxWindows) blocks.delete(blocks.keys().next().value ?? '');
        blocks.set(block.key, now + block.forMs);
        return { count: window.count, blockedMs: block.forMs };
      }
      return { count: window.count, blockedMs: 0 };
    },
    async close() {
      windows.clear();
    },
    size: () => windows.size,
  };
}

/**
 * One round trip per hit: INCR, and on the window's first hit PEXPIRE, in one script. The key
 * names its window, so the expiry only reclaims memory; it is two windows so that an instance
 * whose clock runs ahead, and so opens a window early, cannot see it expire before the others
 * are done with it.
 */
const INCREMENT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, 0}`;

/**
 * The same, behind a block: a blocked key is not counted; a count past the threshold blocks.
 * The block holds its end time on the callers' clock (ARGV[4] is now), like the windows; its
 * Redis expiry only reclaims memory.
 */
const BLOCKING_INCREMENT_SCRIPT = `
local now = tonumber(ARGV[4])
local blockedUntil = tonumber(redis.call('GET', KEYS[2]) or '0')
if blockedUntil > now then return {0, blockedUntil - now} end
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
if count > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], tostring(now + tonumber(ARGV[3])), 'PX', 2 * tonumber(ARGV[3]))
  return {count, tonumber(ARGV[3])}
end
return {count, 0}`;

/**
 * Fails open: while Redis is unreachable or slow, every hit counts as the first of its window,
 * so requests are allowed. A rate limiter protects the API; it must not be the thing that takes
 * it down. The outage is logged at most once per minute.
 */
function createRedisStore(deps: { url: string; clock: Clock; logger: WarnLogger }): CounterStore {
  const client = new Redis(deps.url, {
    // Bounded waits: a queued command fails after the timeout, and a lost connection fails
    // what is queued at once instead of holding requests until it comes back.
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
  });
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
  // Without a listener ioredis prints every reconnection failure to the console.
  client.on('error', warn);
  return {
    async increment(windowKey, _windowEnd, windowMs, block) {
      const open = { count: 1, blockedMs: 0 };
      // Reconnecting: answer now rather than queue behind a connection that is known to be down.
      if (client.status === 'reconnecting' || client.status === 'end') {
        warn(new Error(`Redis connection is ${client.status}`));
        return open;
      }
      try {
        const [count, blockedMs] = (
          block === undefined
            ? await client.eval(INCREMENT_SCRIPT, 1, windowKey, 2 * windowMs)
            : await client.eval(
                BLOCKING_INCREMENT_SCRIPT,
                2,
                windowKey,
                block.key,
                2 * windowMs,
                block.after,
                block.forMs,
                deps.clock.now().getTime(),
              )
        ) as [number, number];
        return { count: Number(count), blockedMs: Number(blockedMs) };
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

/**
 * Budgets every authenticated request, and unauthenticated `/v1/auth/*` per IP (a brute-force
 * guard on sign-in); other public routes (health, docs) are not limited. Register it after
 * `installAuth`: onRequest hooks run in registration order and the budget depends on who the
 * caller is (`request.principal`). A request whose credentials fail is refused by auth first
 * and does not count.
 *
 * The IP is `request.ip`: behind a proxy or load balancer, set Fastify's `trustProxy` to the
 * proxies, or every caller shares the proxy's address and budget.
 */
export function installRateLimit(
  app: FastifyInstance,
  limiter: RateLimiter,
  options: RateLimitOptions = {},
): void {
  const limits: RateLimits = { ...DEFAULT_RATE_LIMITS, ...options.limits };
  app.addHook('onRequest', async (request, reply) => {
    const budget = budgetOf(request, limits);
    if (budget === null) return;
    const result = await limiter.hit(
      budget.key,
      budget.limit,
      RATE_LIMIT_WINDOW_MS,
      budget.blocks ? BREACH_BLOCK_MS : undefined,
    );
    const resetSeconds = Math.ceil(result.resetMs / 1_000);
    const headers = {
      'ratelimit-limit': String(budget.limit),
      'ratelimit-remaining': String(result.remaining),
      'ratelimit-reset': String(resetSeconds),
    };
    if (!result.allowed) throw new RateLimitedError(resetSeconds, headers);
    reply.headers(headers);
  });
}

interface Budget {
  /** Names ids, never a credential's value: keys may sit in a shared Redis. */
  readonly key: string;
  readonly limit: number;
  /** Whether a sustained breach blocks the caller (client ID + IP traffic, as published). */
  readonly blocks?: boolean;
}

function budgetOf(request: FastifyRequest, limits: RateLimits): Budget | null {
  const principal = request.principal;
  if (principal === null) {
    if (request.routeOptions.config?.auth !== undefined) {
      // Auth answers 401 rather than leave a guarded route without a principal.
      throw new Error('installRateLimit ran before installAuth; register it after');
    }
    const route = request.routeOptions.url;
    return route?.startsWith('/v1/auth/')
      ? { key: `auth:${request.ip}`, limit: limits.authEndpoint }
      : null;
  }
  switch (principal.kind) {
    case 'clientId':
    case 'orchestratorPair': {
      const own = principal.clientId.rateLimitPerMinute;
      return {
        key: `client:${principal.clientId.id}:${request.ip}`,
        limit: own !== null && own > 0 ? own : limits.clientId,
        blocks: true,
      };
    }
    case 'apiKey':
      return { key: `apikey:${principal.apiKeyId}`, limit: limits.apiKey };
    case 'session':
      return { key: `session:${principal.sessionId}`, limit: limits.session };
    case 'orchestratorKey':
      return { key: `orchestrator:${principal.orchestratorId}`, limit: limits.orchestratorKey };
  }
}
