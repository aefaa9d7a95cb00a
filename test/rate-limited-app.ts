import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createRateLimiter, type RateLimitOptions } from '../src/http/rate-limit.ts';
import { createTestApp, type TestApp, type TestClock } from './app.ts';

/** Rate-limit test helpers: the real app with a limiter, wired in as the server wires it. */

const REDIS_URL = 'redis://127.0.0.1:6379/15';
/** Every key this run writes starts with it, so runs never share a budget and cleanup is exact. */
const RUN_PREFIX = `payreq-test:ratelimit:${randomBytes(6).toString('hex')}:`;
const CURRENCY = '/v2/currencies?id=USDC-base';
export const MINUTE = 60_000;
export const ON_THE_MINUTE = new Date('2026-11-22T12:00:00Z');

export type Store = 'memory' | 'redis';

let prefixes = 0;
export function freshPrefix(): string {
  prefixes += 1;
  return `${RUN_PREFIX}${prefixes}:`;
}

export function limitedApp(
  store: Store,
  options: {
    keyPrefix?: string;
    clock?: TestClock;
    redisUrl?: string;
    env?: Record<string, string>;
  } & RateLimitOptions = {},
): Promise<TestApp> {
  return createTestApp({
    ...(options.env && { env: options.env }),
    ...(options.clock && { clock: options.clock }),
    rateLimiter: ({ clock, logger }) =>
      createRateLimiter({
        redisUrl: store === 'memory' ? null : (options.redisUrl ?? REDIS_URL),
        clock,
        logger,
        keyPrefix: options.keyPrefix ?? freshPrefix(),
      }),
    ...(options.limits && { limits: options.limits }),
    extend: (app) => {
      // No public route takes the orchestrator pair yet.
      app.get('/test/pair', { config: { auth: ['orchestratorPair'] } }, async () => ({}));
    },
  });
}

export function get(t: TestApp, ip: string, headers: Record<string, string>, url = CURRENCY) {
  return t.app.inject({ method: 'GET', url, headers, remoteAddress: ip });
}

/** Sends `count` requests and returns their status codes, in order. */
export async function burst(
  t: TestApp,
  ip: string,
  headers: Record<string, string>,
  count: number,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await get(t, ip, headers)).statusCode);
  return statuses;
}

export function tally(statuses: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** Deletes every Redis key this run wrote; call it in a file's afterAll. */
export async function deleteRunKeys(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: `${RUN_PREFIX}*`, count: 500 })) {
    keys.push(...(batch as string[]));
  }
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}
