import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Clock } from '../base/clock.ts';
import type { LogStore, WarnLogger } from './rate-limit-store.ts';

/**
 * The rate limiter's store shared by every instance of the service: the sliding logs in Redis,
 * one Lua script per hit.
 */

/** A Redis round trip slower than this counts as Redis being down (the request is allowed). */
const REDIS_COMMAND_TIMEOUT_MS = 200;
const REDIS_CONNECT_TIMEOUT_MS = 2_000;
/** While Redis stays unreachable, one warning per this interval, not one per request. */
const FAIL_OPEN_LOG_INTERVAL_MS = 60_000;

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
export function createRedisStore(deps: {
  url: string;
  clock: Clock;
  logger: WarnLogger;
}): LogStore {
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
