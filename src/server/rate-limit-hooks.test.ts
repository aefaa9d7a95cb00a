import { eq } from 'drizzle-orm';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import {
  burst,
  deleteRunKeys,
  freshPrefix,
  get,
  limitedApp,
  MINUTE,
  ON_THE_MINUTE,
  type Store,
  tally,
} from '../../test/rate-limited-app.ts';
import { createClientId } from '../auth/client-ids.ts';
import { accounts, clientIds } from '../db/schema.ts';
import { createRateLimiter } from '../http/rate-limit.ts';
import { linkClientId } from '../orchestrators/links.ts';
import { createOrchestrator } from '../orchestrators/orchestrators.ts';
import { installRateLimit } from './rate-limit-hooks.ts';

afterAll(deleteRunKeys);

/** The tests of this block share one app and tenant; each starts later than the one before. */
describe.each<Store>(['memory', 'redis'])('with the %s store', (store) => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await limitedApp(store);
    tenant = await createTenant(t.db);
  });
  afterAll(() => t.close());

  const client = () => ({ 'x-client-id': tenant.backendClientId });

  it('refuses the 301st request in a minute from one client ID + IP, once, with Retry-After', async () => {
    t.clock.set(ON_THE_MINUTE);
    const statuses = await burst(t, '203.0.113.1', client(), 300);
    expect(tally(statuses)).toEqual({ 200: 300 });

    const refused = await get(t, '203.0.113.1', client());
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers).toMatchObject({
      'ratelimit-limit': '300',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '60',
    });
    expect(refused.json()).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      code: 'rate_limited',
      message: 'Too many requests; retry after 60 seconds',
    });
  });

  it('keeps another IP, and another client ID from the same IP, on budgets of their own', async () => {
    t.clock.set(new Date(ON_THE_MINUTE.getTime() + 10 * MINUTE));
    expect(tally(await burst(t, '203.0.113.2', client(), 301))).toEqual({ 200: 300, 429: 1 });

    const otherIp = await get(t, '198.51.100.2', client());
    expect(otherIp.statusCode).toBe(200);
    expect(otherIp.headers['ratelimit-remaining']).toBe('299');

    const other = await createTenant(t.db, 'Other shop');
    const otherClient = await get(t, '203.0.113.2', { 'x-client-id': other.backendClientId });
    expect(otherClient.statusCode).toBe(200);
    expect(otherClient.headers['ratelimit-remaining']).toBe('299');
  });

  it('allows the client ID + IP again once its hits have left the window', async () => {
    t.clock.set(new Date(ON_THE_MINUTE.getTime() + 20 * MINUTE + 30_000));
    expect(tally(await burst(t, '203.0.113.3', client(), 301))).toEqual({ 200: 300, 429: 1 });

    t.clock.advance(59_999);
    const refused = await get(t, '203.0.113.3', client());
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    t.clock.advance(1);
    const again = await get(t, '203.0.113.3', client());
    expect(again.statusCode).toBe(200);
    expect(again.headers).toMatchObject({ 'ratelimit-remaining': '299', 'ratelimit-reset': '60' });
  });

  it('counts any 60 seconds, not the clock minute: 301 requests across a minute boundary get a 429', async () => {
    t.clock.set(new Date(ON_THE_MINUTE.getTime() + 25 * MINUTE + 50_000));
    const ip = '203.0.113.11';
    expect(tally(await burst(t, ip, client(), 150))).toEqual({ 200: 150 });
    t.clock.advance(20_000); // past the minute
    expect(tally(await burst(t, ip, client(), 150))).toEqual({ 200: 150 });
    t.clock.advance(10_000);
    const refused = await get(t, ip, client());
    expect(refused.statusCode).toBe(429);
    // The first 150 leave the window 60 seconds after they came: 30 seconds from now.
    expect(refused.headers['retry-after']).toBe('30');

    t.clock.advance(30_000);
    const freed = await get(t, ip, client());
    expect(freed.statusCode).toBe(200);
    // 150 still counted (40 seconds old), and this one: the next slot frees in 20 seconds.
    expect(freed.headers).toMatchObject({ 'ratelimit-remaining': '149', 'ratelimit-reset': '20' });
  });

  it('blocks a client ID + IP for 5 minutes once it runs to twice its budget in a window', async () => {
    t.clock.set(new Date(ON_THE_MINUTE.getTime() + 30 * MINUTE));
    const ip = '203.0.113.30';
    // 300 allowed, 299 refused as ordinary overruns (Retry-After: when a slot frees)...
    const statuses: number[] = [];
    for (let i = 0; i < 599; i++) {
      const res = await get(t, ip, client());
      statuses.push(res.statusCode);
      if (res.statusCode === 429) expect(res.headers['retry-after']).toBe('60');
    }
    expect(tally(statuses)).toEqual({ 200: 300, 429: 299 });
    // ...and the 300th refusal, twice the budget within the minute, starts the block.
    const breach = await get(t, ip, client());
    expect(breach.statusCode).toBe(429);
    expect(breach.headers['retry-after']).toBe('300');
    expect(breach.json().message).toBe('Too many requests; retry after 300 seconds');

    // The window moving on does not lift it; the remaining time counts down.
    t.clock.advance(MINUTE + 10_000);
    const still = await get(t, ip, client());
    expect(still.statusCode).toBe(429);
    expect(still.headers['retry-after']).toBe('230');
    // Another IP of the same client ID is not blocked.
    expect((await get(t, '198.51.100.30', client())).statusCode).toBe(200);

    t.clock.advance(230_000);
    const lifted = await get(t, ip, client());
    expect(lifted.statusCode).toBe(200);
    expect(lifted.headers['ratelimit-remaining']).toBe('299');
  });

  it('does not block an API key that overruns, only refuses it until the window ends', async () => {
    t.clock.set(new Date(ON_THE_MINUTE.getTime() + 40 * MINUTE));
    const key = { 'x-api-key': tenant.apiKey };
    expect(tally(await burst(t, '203.0.113.31', key, 2_401))).toEqual({ 200: 1_200, 429: 1_201 });
    t.clock.advance(MINUTE);
    expect((await get(t, '203.0.113.31', key)).statusCode).toBe(200);
  });

  it("uses the client ID's own tier: at 120 per minute the 121st request is refused", async () => {
    t.clock.set(new Date(ON_THE_MINUTE.getTime() + 50 * MINUTE));
    const basic = await createClientId(t.db, {
      accountId: tenant.accountId,
      label: 'Basic tier',
      allowedDomains: [],
    });
    await t.db.update(clientIds).set({ rateLimitPerMinute: 120 }).where(eq(clientIds.id, basic.id));
    const headers = { 'x-client-id': basic.clientId };
    expect(tally(await burst(t, '203.0.113.4', headers, 120))).toEqual({ 200: 120 });
    const refused = await get(t, '203.0.113.4', headers);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['ratelimit-limit']).toBe('120');
  });

  it('gives an API key its own budget of 1200 per minute, per key whatever the IP', async () => {
    t.clock.set(new Date(ON_THE_MINUTE.getTime() + 60 * MINUTE));
    expect(tally(await burst(t, '203.0.113.5', client(), 301))).toEqual({ 200: 300, 429: 1 });

    const key = { 'x-api-key': tenant.apiKey };
    const first = await get(t, '203.0.113.5', key);
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({
      'ratelimit-limit': '1200',
      'ratelimit-remaining': '1199',
    });
    const fromElsewhere = await get(t, '198.51.100.5', key);
    expect(fromElsewhere.headers['ratelimit-remaining']).toBe('1198');
  });

  it('budgets an orchestrator pair as its client ID + IP, and an orchestrator key alone per orchestrator', async () => {
    t.clock.set(new Date(ON_THE_MINUTE.getTime() + 70 * MINUTE));
    const { orchestratorId, orchestratorKey } = await createOrchestrator(t.db, 'Platform');
    await linkClientId(t.db, orchestratorId, tenant.backendClientId);
    const pair = { 'x-orchestrator-key': orchestratorKey, ...client() };

    expect((await get(t, '203.0.113.6', client())).headers['ratelimit-remaining']).toBe('299');
    const paired = await get(t, '203.0.113.6', pair, '/test/pair');
    expect(paired.statusCode).toBe(200);
    expect(paired.headers).toMatchObject({
      'ratelimit-limit': '300',
      'ratelimit-remaining': '298',
    });

    const alone = await get(
      t,
      '203.0.113.6',
      { 'x-orchestrator-key': orchestratorKey },
      '/v2/orchestrators/client-ids',
    );
    expect(alone.statusCode).toBe(200);
    expect(alone.headers).toMatchObject({
      'ratelimit-limit': '1200',
      'ratelimit-remaining': '1199',
    });
  });

  it('limits unauthenticated /v1/auth/* to 30 per minute per IP, and leaves health alone', async () => {
    t.clock.set(new Date(ON_THE_MINUTE.getTime() + 80 * MINUTE));
    const login = (ip: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: 'nobody@shop.example', password: 'not-the-password' },
        remoteAddress: ip,
      });
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await login('203.0.113.7')).statusCode);
    expect(tally(statuses)).toEqual({ 401: 30, 429: 1 });
    const refused = await login('203.0.113.7');
    expect(refused.json()).toMatchObject({ statusCode: 429, code: 'rate_limited' });
    expect(refused.headers['ratelimit-limit']).toBe('30');

    expect((await login('198.51.100.7')).statusCode).toBe(401);

    const health = await get(t, '203.0.113.7', {}, '/healthz');
    expect(health.statusCode).toBe(200);
    expect(health.headers['ratelimit-limit']).toBeUndefined();
  });

  it('budgets a session at 600 per minute, apart from the sign-in guard', async () => {
    t.clock.set(new Date(ON_THE_MINUTE.getTime() + 90 * MINUTE));
    const registered = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: `${store}@shop.example`, password: 'a-long-password' },
      remoteAddress: '203.0.113.8',
    });
    expect(registered.statusCode).toBe(201);
    expect(registered.headers['ratelimit-limit']).toBe('30');

    const token = registered.json().sessionToken as string;
    const session = await get(
      t,
      '203.0.113.8',
      { authorization: `Bearer ${token}` },
      '/v1/auth/session',
    );
    expect(session.statusCode).toBe(200);
    expect(session.headers).toMatchObject({
      'ratelimit-limit': '600',
      'ratelimit-remaining': '599',
    });
  });

  it('sends the headers on allowed responses, the reset in seconds until the oldest hit leaves', async () => {
    t.clock.set(new Date(ON_THE_MINUTE.getTime() + 100 * MINUTE));
    const first = await get(t, '203.0.113.9', client());
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({
      'ratelimit-limit': '300',
      'ratelimit-remaining': '299',
      'ratelimit-reset': '60',
    });
    t.clock.advance(15_500);
    const later = await get(t, '203.0.113.9', client());
    expect(later.headers).toMatchObject({
      'ratelimit-remaining': '298',
      'ratelimit-reset': '45',
    });
  });

  it('turns an IP away for a minute once 60 of its credentials matched nothing in 60 seconds', async () => {
    t.clock.set(new Date(ON_THE_MINUTE.getTime() + 110 * MINUTE));
    const ip = '203.0.113.40';
    // Signed-out or stale callers are not guessing: none of these count. (A route that needs a
    // credential: GET /v2/currencies answers anonymous callers.)
    for (const headers of [{}, { authorization: `Bearer ses_${'x'.repeat(43)}` }]) {
      const statuses: number[] = [];
      for (let i = 0; i < 70; i++)
        statuses.push((await get(t, ip, headers, '/v2/payments')).statusCode);
      expect(tally(statuses)).toEqual({ 401: 70 });
    }
    expect((await get(t, ip, { 'x-api-key': tenant.apiKey })).statusCode).toBe(200);

    const guesses: number[] = [];
    for (let i = 0; i < 60; i++) {
      guesses.push((await get(t, ip, { 'x-api-key': `sk_${'x'.repeat(43)}${i}` })).statusCode);
      t.clock.advance(500);
    }
    expect(tally(guesses)).toEqual({ 401: 60 });

    // Even a good key from that IP waits, until the first refusal is 60 seconds old.
    const turnedAway = await get(t, ip, { 'x-api-key': tenant.apiKey });
    expect(turnedAway.statusCode).toBe(429);
    expect(turnedAway.headers).toMatchObject({ 'retry-after': '30', 'ratelimit-limit': '60' });
    expect((await get(t, '198.51.100.40', { 'x-api-key': tenant.apiKey })).statusCode).toBe(200);

    t.clock.advance(30_000);
    expect((await get(t, ip, { 'x-api-key': tenant.apiKey })).statusCode).toBe(200);
  });

  it('budgets anonymous GET /v2/currencies per IP, at the client-ID figure', async () => {
    const statuses = await burst(t, '192.0.2.77', {}, 301);
    expect(tally(statuses)).toEqual({ 200: 300, 429: 1 });
    const other = await get(t, '192.0.2.78', {});
    expect(other.statusCode).toBe(200);
    expect(other.headers['ratelimit-limit']).toBe('300');
    // A credential sent is the caller's budget, not the IP's.
    expect((await get(t, '192.0.2.77', { 'x-api-key': tenant.apiKey })).statusCode).toBe(200);
  });

  it('does not count requests whose credentials are refused', async () => {
    const res = await get(t, '203.0.113.10', { 'x-client-id': 'cli_unknown' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  });
});

describe('hook order', () => {
  it('fails loudly when installed before auth, rather than leave guarded routes unlimited', async () => {
    const app = Fastify();
    app.decorateRequest('principal', null);
    const limiter = createRateLimiter({
      redisUrl: null,
      clock: createTestClock(),
      logger: { warn: () => {} },
    });
    installRateLimit(app, limiter);
    app.get('/guarded', { config: { auth: ['apiKey'] } }, async () => ({}));
    const res = await app.inject({ method: 'GET', url: '/guarded' });
    expect(res.statusCode).toBe(500);
    expect(res.json().message).toBe('installRateLimit ran before installAuth; register it after');
    await app.close();
  });
});

describe('across instances', () => {
  /** The same tenant in the second app's own database, so both resolve the same client ID row. */
  async function copyTenant(from: TestApp, to: TestApp, tenant: Tenant): Promise<void> {
    const [account] = await from.db
      .select()
      .from(accounts)
      .where(eq(accounts.id, tenant.accountId));
    const [row] = await from.db
      .select()
      .from(clientIds)
      .where(eq(clientIds.clientId, tenant.backendClientId));
    if (!account || !row) throw new Error('tenant rows missing');
    await to.db.insert(accounts).values(account);
    await to.db.insert(clientIds).values(row);
  }

  async function pairOfApps(store: Store): Promise<[TestApp, TestApp, Tenant]> {
    const clock = createTestClock(ON_THE_MINUTE);
    const keyPrefix = freshPrefix();
    const a = await limitedApp(store, { clock, keyPrefix });
    const b = await limitedApp(store, { clock, keyPrefix });
    const tenant = await createTenant(a.db);
    await copyTenant(a, b, tenant);
    return [a, b, tenant];
  }

  it('shares one budget through Redis: 301 requests split over two apps get one 429', async () => {
    const [a, b, tenant] = await pairOfApps('redis');
    try {
      const headers = { 'x-client-id': tenant.backendClientId };
      const statuses: number[] = [];
      for (let i = 0; i < 301; i++) {
        statuses.push((await get(i % 2 === 0 ? a : b, '203.0.113.20', headers)).statusCode);
      }
      expect(tally(statuses)).toEqual({ 200: 300, 429: 1 });
      expect(statuses.at(-1)).toBe(429);
      // The refusal holds on both instances.
      expect((await get(b, '203.0.113.20', headers)).statusCode).toBe(429);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('counts concurrent requests once each: 301 sent at once over two apps get one 429', async () => {
    const [a, b, tenant] = await pairOfApps('redis');
    try {
      const headers = { 'x-client-id': tenant.backendClientId };
      // Once both are connected: a command queued while the connection is still being made
      // waits for it, and may pass the deadline and be let through.
      await get(a, '203.0.113.99', headers);
      await get(b, '203.0.113.99', headers);
      const responses = await Promise.all(
        Array.from({ length: 301 }, (_, i) => get(i % 2 === 0 ? a : b, '203.0.113.22', headers)),
      );
      expect(tally(responses.map((res) => res.statusCode))).toEqual({ 200: 300, 429: 1 });
      const remaining = responses
        .filter((res) => res.statusCode === 200)
        .map((res) => Number(res.headers['ratelimit-remaining']))
        .sort((x, y) => x - y);
      // Each allowed hit saw its own count: 0 to 299 left, each exactly once.
      expect(remaining).toEqual(Array.from({ length: 300 }, (_, i) => i));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('shares a block through Redis: a breach on one app blocks the caller on the other', async () => {
    const [a, b, tenant] = await pairOfApps('redis');
    try {
      const headers = { 'x-client-id': tenant.backendClientId };
      expect(tally(await burst(a, '203.0.113.21', headers, 600))).toEqual({ 200: 300, 429: 300 });
      a.clock.advance(2 * MINUTE);
      const onB = await get(b, '203.0.113.21', headers);
      expect(onB.statusCode).toBe(429);
      expect(onB.headers['retry-after']).toBe('180');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps independent budgets in memory: each app allows 300 before refusing', async () => {
    const [a, b, tenant] = await pairOfApps('memory');
    try {
      const headers = { 'x-client-id': tenant.backendClientId };
      const statuses: number[] = [];
      for (let i = 0; i < 600; i++) {
        statuses.push((await get(i % 2 === 0 ? a : b, '203.0.113.21', headers)).statusCode);
      }
      expect(tally(statuses)).toEqual({ 200: 600 });
      expect((await get(a, '203.0.113.21', headers)).statusCode).toBe(429);
      expect((await get(b, '203.0.113.21', headers)).statusCode).toBe(429);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('budgets set in the environment', () => {
  it('takes each kind of caller’s budget from RATE_LIMIT_*, the others keeping theirs', async () => {
    const t = await limitedApp('memory', {
      env: { RATE_LIMIT_API_KEY: '3', RATE_LIMIT_CLIENT_ID: '2' },
    });
    try {
      t.clock.set(ON_THE_MINUTE);
      const tenant = await createTenant(t.db);
      const key = { 'x-api-key': tenant.apiKey };
      expect(await burst(t, '203.0.113.80', key, 4)).toEqual([200, 200, 200, 429]);
      expect((await get(t, '203.0.113.80', key)).headers['ratelimit-limit']).toBe('3');
      const client = { 'x-client-id': tenant.backendClientId };
      expect(await burst(t, '203.0.113.81', client, 3)).toEqual([200, 200, 429]);
    } finally {
      await t.close();
    }
  });
});
