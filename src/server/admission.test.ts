import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { requests } from '../db/schema.ts';
import { createAdmissionGate } from './admission.ts';

describe('the admission gate', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs up to the limit, queues up to the queue, refuses the rest at once', async () => {
    const gate = createAdmissionGate({ maxInFlight: 2, maxQueue: 1, maxWaitMs: 1_000 });
    expect(await gate.acquire()).toBe(true);
    expect(await gate.acquire()).toBe(true);
    const waiting = gate.acquire();
    expect(gate.queued).toBe(1);
    expect(await gate.acquire()).toBe(false);
    gate.release();
    expect(await waiting).toBe(true);
    expect(gate.inFlight).toBe(2);
    gate.release();
    gate.release();
    expect(gate.inFlight).toBe(0);
  });

  it('hands a freed slot to the longest waiter first', async () => {
    const gate = createAdmissionGate({ maxInFlight: 1, maxQueue: 3, maxWaitMs: 1_000 });
    await gate.acquire();
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) => gate.acquire().then(() => order.push(n)));
    gate.release();
    gate.release();
    gate.release();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
  });

  it('refuses a waiter after the longest wait, and the slot it never held stays free', async () => {
    vi.useFakeTimers();
    const gate = createAdmissionGate({ maxInFlight: 1, maxQueue: 5, maxWaitMs: 500 });
    await gate.acquire();
    const waiting = gate.acquire();
    vi.advanceTimersByTime(499);
    expect(gate.queued).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await waiting).toBe(false);
    expect(gate.queued).toBe(0);
    gate.release();
    expect(gate.inFlight).toBe(0);
    expect(await gate.acquire()).toBe(true);
  });
});

describe('admission control over HTTP', () => {
  let t: TestApp;
  const held: (() => void)[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        ADMISSION_MAX_IN_FLIGHT: '2',
        ADMISSION_MAX_QUEUE: '1',
        ADMISSION_MAX_WAIT_MS: '60000',
      },
      // A route that holds its slot until the test lets it go: the fault a slow database is.
      extend: (app) => {
        app.get('/test/hold', async () => {
          await new Promise<void>((resolve) => held.push(resolve));
          return { done: true };
        });
      },
    });
  });
  afterAll(() => t.close());

  it('answers 503 with Retry-After once running and waiting are full, and serves again after', async () => {
    const running = [1, 2, 3].map(() => t.app.inject({ method: 'GET', url: '/test/hold' }));
    await vi.waitFor(() => expect(held).toHaveLength(2));

    const refused = await t.app.inject({ method: 'GET', url: '/v2/currencies' });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toMatchObject({
      statusCode: 503,
      code: 'server_busy',
      message: 'The server is busy; retry shortly',
    });
    // Routes that touch no database are never queued.
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    held.splice(0).forEach((release) => {
      release();
    });
    await vi.waitFor(() => expect(held).toHaveLength(1));
    held.splice(0).forEach((release) => {
      release();
    });
    for (const res of await Promise.all(running)) expect(res.statusCode).toBe(200);
    const after = await t.app.inject({ method: 'GET', url: '/v2/currencies' });
    expect(after.statusCode).toBe(200);
  });

  it('refuses before reading the body or the credentials: a full gate costs a refusal nothing more', async () => {
    const running = [1, 2, 3].map(() => t.app.inject({ method: 'GET', url: '/test/hold' }));
    await vi.waitFor(() => expect(held).toHaveLength(2));

    // Not JSON, and a key that matches nothing: parsed, either would be a 4xx.
    const refused = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk_nothing' },
      payload: '{"requests": [',
    });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(refused.json()).toEqual({
      statusCode: 503,
      message: 'The server is busy; retry shortly',
      error: 'Service Unavailable',
      code: 'server_busy',
    });

    held.splice(0).forEach((release) => {
      release();
    });
    await vi.waitFor(() => expect(held).toHaveLength(1));
    held.splice(0).forEach((release) => {
      release();
    });
    for (const res of await Promise.all(running)) expect(res.statusCode).toBe(200);
  });
});

describe('a client that leaves while it waits', () => {
  let t: TestApp;
  const held: (() => void)[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        ADMISSION_MAX_IN_FLIGHT: '1',
        ADMISSION_MAX_QUEUE: '1',
        ADMISSION_MAX_WAIT_MS: '60000',
      },
      extend: (app) => {
        app.get('/test/hold', async () => {
          await new Promise<void>((resolve) => held.push(resolve));
          return { done: true };
        });
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  it('gives its slot back when its turn comes, so the next request runs', async () => {
    const { port } = t.app.server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/test/hold`;
    const first = fetch(url);
    await vi.waitFor(() => expect(held).toHaveLength(1));
    // Queued behind the first, then gone.
    const socket = connect(port, '127.0.0.1');
    socket.write(`GET /test/hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    held.shift()?.();
    expect((await first).status).toBe(200);

    const next = fetch(url);
    await vi.waitFor(() => expect(held).toHaveLength(1));
    held.shift()?.();
    expect((await next).status).toBe(200);
  });
});

describe('an embedded database under a burst', () => {
  let t: TestApp;
  let shop: Tenant;

  beforeAll(async () => {
    // The embedded database's default gate.
    t = await createTestApp({ env: { ADMISSION_MAX_IN_FLIGHT: '8' } });
    shop = await createTenant(t.db);
  });
  afterAll(() => t.close());

  it('creates what it admits, refuses the rest with 503 and writes nothing for them', async () => {
    const burst = await Promise.all(
      Array.from({ length: 150 }, (_, n) =>
        t.app.inject({
          method: 'POST',
          url: '/v2/request',
          headers: { 'x-api-key': shop.apiKey },
          payload: {
            amount: `${n + 1}`,
            invoiceCurrency: 'USDC-base',
            paymentCurrency: 'USDC-base',
            payee: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
          },
        }),
      ),
    );
    const statuses = burst.map((res) => res.statusCode);
    const created = statuses.filter((status) => status === 201).length;
    const busy = burst.filter((res) => res.statusCode === 503);
    expect(created + busy.length).toBe(150);
    expect(created).toBeGreaterThanOrEqual(8);
    expect(busy.length).toBeGreaterThan(0);
    for (const res of busy) {
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json().code).toBe('server_busy');
    }
    const rows = await t.db.select().from(requests).where(eq(requests.accountId, shop.accountId));
    expect(rows).toHaveLength(created);
  });
});

describe.runIf(inject('testDatabase').kind === 'pglite')(
  'the embedded database working through a queue of statements',
  () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp();
      await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(() => t.close());

    it('accepts and answers new connections between its statements, not after all of them', async () => {
      const { port } = t.app.server.address() as AddressInfo;
      // The work of requests already admitted: statements queued all at once.
      const STATEMENTS = 2_000;
      let done = 0;
      const work = Promise.all(
        Array.from({ length: STATEMENTS }, () =>
          t.db.execute(sql`select 1`).then(() => {
            done += 1;
          }),
        ),
      );
      // A burst of new connections meanwhile. Node accepts one connection per turn of the event
      // loop: were the statements all run in one turn, none would be answered before the last.
      const doneWhenAnswered = await Promise.all(
        Array.from(
          { length: 10 },
          () =>
            new Promise<number>((resolve, reject) => {
              const socket = connect(port, '127.0.0.1', () => {
                socket.write(
                  'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
                );
              });
              socket.once('data', (chunk) => {
                expect(chunk.toString()).toMatch(/^HTTP\/1\.1 200 /);
                resolve(done);
                socket.destroy();
              });
              socket.once('error', reject);
            }),
        ),
      );
      await work;
      expect(done).toBe(STATEMENTS);
      for (const statementsDone of doneWhenAnswered)
        expect(statementsDone).toBeLessThan(STATEMENTS);
    });
  },
);
