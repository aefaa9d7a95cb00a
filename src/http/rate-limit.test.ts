import { connect, createServer, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../../test/app.ts';
import { createTenant } from '../../test/fixtures.ts';
import {
  burst,
  deleteRunKeys,
  freshPrefix,
  limitedApp,
  MINUTE,
  ON_THE_MINUTE,
} from '../../test/rate-limited-app.ts';
import { createRateLimiter } from './rate-limit.ts';
import { createMemoryStore, MEMORY_SWEEP_INTERVAL_MS } from './rate-limit-memory-store.ts';

afterAll(deleteRunKeys);

describe('memory store', () => {
  const logger = { warn: () => {} };

  it('frees one slot as each counted hit leaves the window', async () => {
    const clock = createTestClock(ON_THE_MINUTE);
    const limiter = createRateLimiter({ redisUrl: null, clock, logger });
    expect(await limiter.hit('k', 2, MINUTE)).toEqual({
      allowed: true,
      remaining: 1,
      resetMs: MINUTE,
      blocked: false,
    });
    clock.advance(10_000);
    expect(await limiter.hit('k', 2, MINUTE)).toEqual({
      allowed: true,
      remaining: 0,
      resetMs: 50_000,
      blocked: false,
    });
    expect(await limiter.hit('k', 2, MINUTE)).toEqual({
      allowed: false,
      remaining: 0,
      resetMs: 50_000,
      blocked: false,
    });
    clock.advance(50_000);
    // The first hit has left; the second (50 seconds old) still counts.
    expect(await limiter.hit('k', 2, MINUTE)).toEqual({
      allowed: true,
      remaining: 0,
      resetMs: 10_000,
      blocked: false,
    });
    await limiter.close();
  });

  it('sweeps callers whose hits have all left the window, at most once per sweep interval', async () => {
    const start = ON_THE_MINUTE.getTime();
    const clock = createTestClock(ON_THE_MINUTE);
    const store = createMemoryStore({ clock });
    const hit = (key: string) =>
      store.hit({ key, now: clock.now().getTime(), limit: 5, windowMs: MINUTE, blockMs: 0 });
    for (const key of ['a', 'b', 'c']) await hit(key);
    expect(store.size()).toBe(3);

    clock.set(new Date(start + MINUTE + MEMORY_SWEEP_INTERVAL_MS / 2));
    await hit('d'); // sweeps: a, b and c are a minute old
    expect(store.size()).toBe(1);
    await hit('e'); // no sweep due yet
    expect(store.size()).toBe(2);
  });

  it('keeps an exact count through a long steady stream at a large budget', async () => {
    const store = createMemoryStore({ clock: createTestClock(ON_THE_MINUTE) });
    const start = ON_THE_MINUTE.getTime();
    const window = 1_000;
    const limit = 5_000;
    // One hit a millisecond for 20 s: the log holds the last 1,000 and sheds one per hit.
    for (let n = 0; n < 20_000; n += 1) {
      const result = await store.hit({
        key: 'k',
        now: start + n,
        limit,
        windowMs: window,
        blockMs: 0,
      });
      expect(result.remaining).toBe(limit - Math.min(n + 1, window));
      expect(result.resetMs).toBe(n < window ? window - n : 1);
    }
    const peek = await store.hit({
      key: 'k',
      now: start + 20_000,
      limit,
      windowMs: window,
      blockMs: 0,
      peek: true,
    });
    expect(peek.remaining).toBe(limit - (window - 1));
  });

  it('counts every hit of a busy millisecond, and lets them all go together', async () => {
    const store = createMemoryStore({ clock: createTestClock(ON_THE_MINUTE) });
    const start = ON_THE_MINUTE.getTime();
    const window = 1_000;
    const limit = 50_000;
    const hit = (now: number, peek = false) =>
      store.hit({ key: 'k', now, limit, windowMs: window, blockMs: 0, peek });
    // Ten hits in each millisecond for 3 s: the window holds 10,000 at a time.
    for (let ms = 0; ms < 3_000; ms += 1) {
      for (let i = 0; i < 10; i += 1) {
        const result = await hit(start + ms);
        const held = 10 * Math.min(ms, window - 1) + i + 1;
        expect(result.remaining).toBe(limit - held);
        expect(result.resetMs).toBe(ms < window ? window - ms : 1);
      }
    }
    // A peek half a window on sees the hits of the last half only.
    expect((await hit(start + 2_999 + 500, true)).remaining).toBe(limit - 10 * 500);
    // Past the budget within one millisecond: the rest of that millisecond's hits are refused.
    const small = createMemoryStore({ clock: createTestClock(ON_THE_MINUTE) });
    const tight = (now: number) =>
      small.hit({ key: 'k', now, limit: 3, windowMs: window, blockMs: 0 });
    expect((await tight(start)).remaining).toBe(2);
    expect((await tight(start)).remaining).toBe(1);
    expect((await tight(start)).remaining).toBe(0);
    expect((await tight(start)).allowed).toBe(false);
    expect((await tight(start + window - 1)).allowed).toBe(false);
    // All three leave at once, a window after the millisecond they came in.
    expect((await tight(start + window)).remaining).toBe(2);
  });

  it('forgets the least recently seen caller first when full', async () => {
    const clock = createTestClock(ON_THE_MINUTE);
    const store = createMemoryStore({ clock, maxKeys: 2 });
    const hit = async (key: string) =>
      (await store.hit({ key, now: clock.now().getTime(), limit: 5, windowMs: MINUTE, blockMs: 0 }))
        .remaining;
    expect(await hit('a')).toBe(4);
    expect(await hit('b')).toBe(4);
    expect(await hit('a')).toBe(3); // a is now the most recently seen
    expect(await hit('c')).toBe(4); // forgets b
    expect(store.size()).toBe(2);
    expect(await hit('a')).toBe(2);
    expect(await hit('b')).toBe(4);
  });

  it('keeps counting a caller whose log was swept while it was the most recent', async () => {
    const clock = createTestClock(ON_THE_MINUTE);
    const store = createMemoryStore({ clock });
    const hit = async (key: string) =>
      (await store.hit({ key, now: clock.now().getTime(), limit: 5, windowMs: MINUTE, blockMs: 0 }))
        .remaining;
    expect(await hit('a')).toBe(4);
    expect(await hit('a')).toBe(3);
    clock.set(new Date(ON_THE_MINUTE.getTime() + MINUTE + MEMORY_SWEEP_INTERVAL_MS));
    expect(await hit('a')).toBe(4); // swept, then counted afresh
    expect(store.size()).toBe(1);
    expect(await hit('a')).toBe(3);
  });
});

/** A TCP relay to the local Redis that a test can cut and restore, as a network fault would. */
async function startRedisProxy(): Promise<{
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const upstream = connect(6379, '127.0.0.1');
    for (const end of [socket, upstream]) {
      sockets.add(end);
      end.on('error', () => {});
      end.on('close', () => {
        socket.destroy();
        upstream.destroy();
        sockets.delete(end);
      });
    }
    socket.pipe(upstream).pipe(socket);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const cut = async () => {
    const closed = new Promise((resolve) => server.close(resolve));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    port: address.port,
    cut,
    restore: () => listen(address.port),
    close: async () => {
      if (server.listening) await cut();
    },
  };
}

describe('when Redis is unreachable', () => {
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    await new Promise((resolve) => server.close(resolve));
    return address.port;
  }

  it('allows every hit and warns once a minute', async () => {
    const clock = createTestClock(ON_THE_MINUTE);
    const warnings: string[] = [];
    const limiter = createRateLimiter({
      redisUrl: `redis://127.0.0.1:${await closedPort()}`,
      clock,
      logger: { warn: (_details, message) => warnings.push(message) },
    });
    try {
      for (let i = 0; i < 5; i++) {
        expect((await limiter.hit('k', 1, MINUTE)).allowed).toBe(true);
      }
      expect(warnings).toEqual([
        'rate limiter: Redis unavailable, allowing requests unlimited until it answers',
      ]);
      clock.advance(MINUTE);
      await limiter.hit('k', 1, MINUTE);
      expect(warnings).toHaveLength(2);
    } finally {
      await limiter.close();
    }
  });

  it('allows hits while Redis is cut off mid-run, and limits again once it is back', async () => {
    const proxy = await startRedisProxy();
    const warnings: string[] = [];
    const limiter = createRateLimiter({
      redisUrl: `redis://127.0.0.1:${proxy.port}/15`,
      clock: createTestClock(ON_THE_MINUTE),
      logger: { warn: (_details, message) => warnings.push(message) },
      keyPrefix: freshPrefix(),
    });
    try {
      expect((await limiter.hit('k', 2, MINUTE)).allowed).toBe(true);
      expect((await limiter.hit('k', 2, MINUTE)).allowed).toBe(true);
      expect((await limiter.hit('k', 2, MINUTE)).allowed).toBe(false);

      await proxy.cut();
      for (let i = 0; i < 3; i++) expect((await limiter.hit('k', 2, MINUTE)).allowed).toBe(true);
      expect(warnings).toEqual([
        'rate limiter: Redis unavailable, allowing requests unlimited until it answers',
      ]);

      await proxy.restore();
      // ioredis reconnects on its own backoff; the two hits Redis kept still fill the budget.
      let refusedAgain = false;
      for (let attempt = 0; attempt < 100 && !refusedAgain; attempt++) {
        refusedAgain = !(await limiter.hit('k', 2, MINUTE)).allowed;
        if (!refusedAgain) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(refusedAgain).toBe(true);
      expect(warnings.at(-1)).toBe('rate limiter: Redis answers again, limiting requests');
    } finally {
      await limiter.close();
      await proxy.close();
    }
  });

  it('lets requests through the app', async () => {
    const t = await limitedApp('redis', {
      redisUrl: `redis://127.0.0.1:${await closedPort()}`,
      limits: { clientId: 1 },
    });
    try {
      const tenant = await createTenant(t.db);
      const statuses = await burst(t, '203.0.113.30', { 'x-client-id': tenant.backendClientId }, 3);
      expect(statuses).toEqual([200, 200, 200]);
      expect(t.logs.text()).toContain('rate limiter: Redis unavailable');
    } finally {
      await t.close();
    }
  });
});
