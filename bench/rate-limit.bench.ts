// npm run bench: the rate limiter's cost per request, next to baselines measured in the same
// run: a Map counter for the memory store, a plain Redis INCR round trip for the Redis store.
// Loopback only (Redis on 127.0.0.1:6379); the Redis half is skipped when none answers.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Clock } from '../src/base/clock.ts';
import { createRateLimiter, type RateLimiter } from '../src/http/rate-limit.ts';
import { type BenchRow, report } from './report.ts';

const HITS = 50_000;
const REDIS_HITS = 5_000;
const CONCURRENCY = 50;
const LIMIT = 1_200;
const WINDOW_MS = 60_000;
const REDIS_URL = 'redis://127.0.0.1:6379/13';

/** Time advances 1 ms per hit, so logs stay full and every hit prunes one entry: the worst case. */
function steppingClock(): Clock {
  let now = Date.UTC(2026, 10, 22);
  return {
    now: () => {
      now += 1;
      return new Date(now);
    },
  };
}

const rate = (count: number, ms: number) => Math.round((count / ms) * 1_000);
const logger = { warn: () => {} };

async function run(count: number, concurrency: number, once: () => unknown) {
  const started = performance.now();
  let left = count;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left > 0) {
        left -= 1;
        await once();
      }
    }),
  );
  return rate(count, performance.now() - started);
}

async function limiterRate(limiter: RateLimiter, count: number, concurrency: number) {
  let n = 0;
  return run(count, concurrency, () => {
    n += 1;
    // 100 callers, each at its budget: most hits are refusals, as in a flood.
    return limiter.hit(`client:bench:${n % 100}`, LIMIT, WINDOW_MS, 5 * 60_000);
  });
}

const counts = new Map<string, number>();
let m = 0;
const mapRate = await run(HITS, 1, async () => {
  m += 1;
  const key = `client:bench:${m % 100}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
});
const rows: BenchRow[] = [];
const memory = createRateLimiter({ redisUrl: null, clock: steppingClock(), logger });
const memoryRate = await limiterRate(memory, HITS, 1);
await memory.close();
rows.push({
  bench: 'rate-limit',
  name: 'rate limiter, memory store',
  value: memoryRate,
  unit: 'hits/s',
  baseline: { name: 'Map increments', value: mapRate },
});

const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0 });
const reachable = await probe.connect().then(
  () => true,
  () => false,
);
if (!reachable) {
  process.stdout.write('redis store: skipped, no Redis on 127.0.0.1:6379\n');
} else {
  const prefix = `payreq-bench:${randomBytes(4).toString('hex')}:`;
  const incrRate = await run(REDIS_HITS, CONCURRENCY, () => probe.incr(`${prefix}baseline`));
  const redis = createRateLimiter({
    redisUrl: REDIS_URL,
    clock: steppingClock(),
    logger,
    keyPrefix: prefix,
  });
  await redis.hit('warm-up', LIMIT, WINDOW_MS);
  const redisRate = await limiterRate(redis, REDIS_HITS, CONCURRENCY);
  await redis.close();
  const keys = await probe.keys(`*${prefix}*`);
  if (keys.length > 0) await probe.del(...keys);
  rows.push({
    bench: 'rate-limit',
    name: `rate limiter, Redis store, ${CONCURRENCY} at a time`,
    value: redisRate,
    unit: 'hits/s',
    baseline: { name: 'raw Redis INCR round trips', value: incrRate },
  });
}
await probe.quit().catch(() => probe.disconnect());
report('rate-limit', rows);
