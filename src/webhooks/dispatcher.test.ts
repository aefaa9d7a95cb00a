import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { type Receiver, startReceiver } from '../../test/webhook-receiver.ts';
import { createSecretBox } from '../crypto/secret-box.ts';
import { queryRows } from '../db/client.ts';
import { webhookAttempts, webhookDeliveries, webhooks } from '../db/schema.ts';
import { ulid } from '../ulid.ts';
import { createDispatcher, type Dispatcher } from './dispatcher.ts';
import { enqueue } from './outbox.ts';

/**
 * The dispatcher against real loopback servers that misbehave: silence, refused connections,
 * redirects, endless failure, endpoints switched off, addresses it must not reach, and two
 * dispatchers racing for the same outbox.
 */

const TIMEOUT_MS = 300;
const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 8_000;
const RETRY_FOR_MS = 60_000;
/** The claim's lease: nine attempts' timeouts plus the dispatcher's margin. */
const LEASE_MS = 9 * TIMEOUT_MS + 30_000;

const ENV = {
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
  WEBHOOK_RETRY_MAX_MS: String(RETRY_MAX_MS),
  WEBHOOK_RETRY_FOR_MS: String(RETRY_FOR_MS),
};

let t: TestApp; // ALLOW_LOCAL_WEBHOOKS on
let strict: TestApp; // ALLOW_LOCAL_WEBHOOKS off
let tenant: Tenant;
let dispatcher: Dispatcher;
const closers: (() => Promise<void>)[] = [];

function dispatcherFor(app: TestApp, random: () => number = () => 0.5): Dispatcher {
  return createDispatcher({
    db: app.database.queue,
    clock: app.clock,
    logger: app.app.log as never,
    secretBox: app.secretBox,
    config: app.config.webhooks,
    random,
  });
}

beforeAll(async () => {
  [t, strict] = await Promise.all([
    createTestApp({ env: { ...ENV, ALLOW_LOCAL_WEBHOOKS: 'true' } }),
    createTestApp({ env: { ...ENV, ALLOW_LOCAL_WEBHOOKS: 'false' } }),
  ]);
  tenant = await createTenant(t.db);
  // random 0.5 puts the jitter factor at exactly 1: each delay is the bare backoff.
  dispatcher = dispatcherFor(t);
});
// Each test owns its deliveries: whatever one leaves pending must not be retried in the next.
afterEach(async () => {
  for (const app of [t, strict]) {
    await app.db
      .update(webhookDeliveries)
      .set({ status: 'failed' })
      .where(eq(webhookDeliveries.status, 'pending'));
  }
});
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await Promise.all([t.close(), strict.close()]);
});

interface Server {
  readonly url: string;
  readonly port: number;
  /** Paths of the requests that reached it, in order. */
  readonly paths: string[];
}

/** A loopback server with the behaviour given; closed after the file. */
async function startServer(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<Server> {
  const paths: string[] = [];
  const server = createServer((request, response) => {
    paths.push(request.url ?? '');
    request.resume();
    handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${port}/hooks`, port, paths };
}

/** Receivers by URL: each checks deliveries as one written for the reference API would. */
const receiversByUrl = new Map<string, Receiver>();

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  closers.push(() => started.close());
  receiversByUrl.set(started.url, started);
  return started;
}

/** A loopback port with nothing listening: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function register(url: string, owner: Tenant = tenant): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': owner.apiKey },
    payload: { url },
  });
  expect(res.statusCode, res.body).toBe(201);
  receiversByUrl.get(url)?.verifyWith(res.json().secret);
  return res.json().id;
}

/** One delivery through the real outbox writer, due now. */
async function deliver(webhookId: string, app: TestApp = t): Promise<string> {
  const [id] = await enqueue(
    app.db,
    app.clock.now(),
    [webhookId],
    [{ event: 'payment.confirmed', payload: { requestId: ulid() } }],
  );
  if (id === undefined) throw new Error('enqueue wrote nothing');
  return id;
}

async function deliveryRow(id: string, app: TestApp = t) {
  const [row] = await app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  if (!row) throw new Error(`no delivery ${id}`);
  return row;
}

/** `count` deliveries to one endpoint, due now, each body numbered. */
function deliverMany(webhookId: string, count: number): Promise<string[]> {
  return enqueue(
    t.db,
    t.clock.now(),
    [webhookId],
    Array.from({ length: count }, (_, n) => ({ event: 'payment.confirmed', payload: { n } })),
  );
}

function deliveriesTo(webhookId: string) {
  return t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId));
}

async function attemptLog(id: string, app: TestApp = t) {
  return app.db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, id))
    .orderBy(asc(webhookAttempts.attempt));
}

const fromNow = (ms: number) => new Date(t.clock.now().getTime() + ms);

describe('a receiver that does not answer', () => {
  it('fails the attempt after WEBHOOK_TIMEOUT_MS and retries the delivery later', async () => {
    const silent = await startServer(() => {}); // reads the request, never answers
    const id = await deliver(await register(silent.url));

    const began = performance.now();
    expect(await dispatcher.runOnce()).toBe(1);
    const elapsed = performance.now() - began;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 2_000);
    expect(silent.paths).toEqual(['/hooks']);
    expect(await deliveryRow(id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: null,
      lastError: `no answer within ${TIMEOUT_MS} ms`,
      lockedUntil: null,
      nextAttemptAt: fromNow(RETRY_BASE_MS),
    });
    const [first] = await attemptLog(id);
    expect(first).toMatchObject({
      attempt: 1,
      statusCode: null,
      error: `no answer within ${TIMEOUT_MS} ms`,
    });
    expect(first?.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);

    expect(await dispatcher.runOnce()).toBe(0); // not due yet
    t.clock.advance(RETRY_BASE_MS);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(silent.paths).toEqual(['/hooks', '/hooks']);
    expect(await deliveryRow(id)).toMatchObject({ status: 'pending', attempts: 2 });
  });

  it('times out a receiver that sends its headers but never finishes the body', async () => {
    const trickle = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('working on it');
    });
    const id = await deliver(await register(trickle.url));
    expect(await dispatcher.runOnce()).toBe(1);
    // A 200 whose body never ends is not a delivery.
    expect(await deliveryRow(id)).toMatchObject({
      status: 'pending',
      lastStatusCode: null,
      lastError: `no answer within ${TIMEOUT_MS} ms`,
      deliveredAt: null,
    });
  });

  it('leaves a claimed delivery to its dispatcher while the attempt is in flight', async () => {
    const silent = await startServer(() => {});
    const id = await deliver(await register(silent.url));
    const other = dispatcherFor(t);
    const inFlight = dispatcher.runOnce();
    while (silent.paths.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await other.runOnce()).toBe(0);
    expect(await inFlight).toBe(1);
    expect(silent.paths).toHaveLength(1);
    expect(await attemptLog(id)).toHaveLength(1);
  });

  it('retries a delivery whose dispatcher died mid-attempt once the lease runs out', async () => {
    const endpoint = await receiver();
    const id = await deliver(await register(endpoint.url));
    // What a claim leaves behind when its process dies before recording the outcome.
    await t.db
      .update(webhookDeliveries)
      .set({ attempts: 1, lockedUntil: fromNow(LEASE_MS) })
      .where(eq(webhookDeliveries.id, id));
    expect(await dispatcher.runOnce()).toBe(0);
    t.clock.advance(LEASE_MS - 1);
    expect(await dispatcher.runOnce()).toBe(0);
    t.clock.advance(1);
    expect(await dispatcher.runOnce()).toBe(1);
    const [received] = await endpoint.waitFor(1);
    expect(received?.headers['x-service-delivery']).toBe(id);
    expect(received?.headers['x-service-retry-count']).toBe('1');
    expect(await deliveryRow(id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });
});

describe('a receiver that cannot be reached or refuses', () => {
  it('retries after a refused connection', async () => {
    const port = await closedPort();
    const id = await deliver(await register(`http://127.0.0.1:${port}/hooks`));
    expect(await dispatcher.runOnce()).toBe(1);
    const row = await deliveryRow(id);
    expect(row).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: null,
      nextAttemptAt: fromNow(RETRY_BASE_MS),
    });
    expect(row.lastError).toContain('ECONNREFUSED');
    t.clock.advance(RETRY_BASE_MS);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await deliveryRow(id)).toMatchObject({
      status: 'pending',
      attempts: 2,
      nextAttemptAt: fromNow(2 * RETRY_BASE_MS),
    });
    expect((await attemptLog(id)).map((a) => a.statusCode)).toEqual([null, null]);
  });

  it('treats a 3xx as a failed attempt and never follows the redirect', async () => {
    const statuses = [301, 302, 303, 307, 308, 200];
    const redirecting = await startServer((_request, response) => {
      const status = statuses.shift() ?? 200;
      response.writeHead(status, status < 400 ? { location: '/elsewhere' } : {}).end();
    });
    const id = await deliver(await register(redirecting.url));
    for (const status of [301, 302, 303, 307, 308]) {
      expect(await dispatcher.runOnce()).toBe(1);
      expect(await deliveryRow(id), String(status)).toMatchObject({
        status: 'pending',
        lastStatusCode: status,
        lastError: `HTTP ${status}`,
        deliveredAt: null,
      });
      t.clock.advance(RETRY_MAX_MS);
    }
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await deliveryRow(id)).toMatchObject({ status: 'delivered', lastStatusCode: 200 });
    expect(redirecting.paths).toEqual(Array(6).fill('/hooks'));
    expect((await attemptLog(id)).map((a) => [a.statusCode, a.error])).toEqual([
      [301, 'HTTP 301'],
      [302, 'HTTP 302'],
      [303, 'HTTP 303'],
      [307, 'HTTP 307'],
      [308, 'HTTP 308'],
      [200, null],
    ]);
  });

  it('counts any 2xx as delivered', async () => {
    const endpoint = await receiver();
    const webhookId = await register(endpoint.url);
    for (const status of [201, 202, 204, 299]) {
      endpoint.respondWith(status);
      const id = await deliver(webhookId);
      expect(await dispatcher.runOnce()).toBe(1);
      expect(await deliveryRow(id), String(status)).toMatchObject({
        status: 'delivered',
        attempts: 1,
        lastStatusCode: status,
        lastError: null,
        deliveredAt: t.clock.now(),
      });
    }
  });
});

describe('retries', () => {
  it('doubles the delay after each failure, up to WEBHOOK_RETRY_MAX_MS', async () => {
    const failing = await startServer((_request, response) => response.writeHead(500).end());
    const id = await deliver(await register(failing.url));
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      expect(await dispatcher.runOnce()).toBe(1);
      const row = await deliveryRow(id);
      expect(row.attempts).toBe(attempt);
      delays.push(row.nextAttemptAt.getTime() - t.clock.now().getTime());
      t.clock.set(row.nextAttemptAt);
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  });

  it('keeps the jitter within 20% either side of the backoff', async () => {
    const failing = await startServer((_request, response) => response.writeHead(503).end());
    const webhookId = await register(failing.url);
    for (const [random, delay] of [
      [0, 800],
      [0.25, 900],
      [0.999_999, 1_200],
    ] as const) {
      const id = await deliver(webhookId);
      expect(await dispatcherFor(t, () => random).runOnce()).toBe(1);
      expect((await deliveryRow(id)).nextAttemptAt, String(random)).toEqual(fromNow(delay));
    }
  });

  it('records a send that cannot start (a secret sealed under another key) and gives up in time', async () => {
    const endpoint = await receiver();
    const id = await deliver(await register(endpoint.url));
    // As after SECRET_KEY changed: the sealed secret no longer opens.
    const rekeyed = createDispatcher({
      db: t.db,
      clock: t.clock,
      logger: t.app.log as never,
      secretBox: createSecretBox(randomBytes(32)),
      config: t.config.webhooks,
      random: () => 0.5,
    });
    expect(await rekeyed.runOnce()).toBe(1);
    const first = await deliveryRow(id);
    expect(first).toMatchObject({ status: 'pending', attempts: 1, lockedUntil: null });
    expect(first.lastError).toMatch(/^not sent: /);
    expect(first.nextAttemptAt.getTime()).toBe(fromNow(RETRY_BASE_MS).getTime());
    for (let round = 0; round < 20 && (await deliveryRow(id)).status === 'pending'; round++) {
      t.clock.set((await deliveryRow(id)).nextAttemptAt);
      expect(await rekeyed.runOnce()).toBe(1);
    }
    expect(await deliveryRow(id)).toMatchObject({ status: 'failed', attempts: 10 });
    expect(await attemptLog(id)).toHaveLength(10);
    expect(endpoint.received).toHaveLength(0);
  });

  it('marks a delivery failed once WEBHOOK_RETRY_FOR_MS has passed, and stops retrying', async () => {
    const endpoint = await receiver();
    endpoint.respondWith(...Array<number>(20).fill(500));
    const webhookId = await register(endpoint.url);
    const id = await deliver(webhookId);
    const created = t.clock.now().getTime();

    const retryAt: number[] = [];
    for (let round = 0; round < 20; round++) {
      expect(await dispatcher.runOnce()).toBe(1);
      const row = await deliveryRow(id);
      if (row.status !== 'pending') break;
      retryAt.push(row.nextAttemptAt.getTime() - created);
      t.clock.set(row.nextAttemptAt);
    }
    // 1, 2, 4, 8 s, then 8 s each (the cap), until the next try would fall past 60 s.
    expect(retryAt).toEqual([1_000, 3_000, 7_000, 15_000, 23_000, 31_000, 39_000, 47_000, 55_000]);
    const row = await deliveryRow(id);
    expect(row).toMatchObject({
      status: 'failed',
      attempts: 10,
      lastStatusCode: 500,
      lastError: 'HTTP 500',
      deliveredAt: null,
    });
    expect(endpoint.received.map((r) => r.headers['x-service-retry-count'])).toEqual(
      Array.from({ length: 10 }, (_, i) => String(i)),
    );
    expect(await attemptLog(id)).toHaveLength(10);
    expect(
      t.logs
        .entries()
        .filter((e) => e.msg === 'webhook delivery failed for good' && e.deliveryId === id),
    ).toHaveLength(1);

    t.clock.advance(24 * 60 * 60_000);
    expect(await dispatcher.runOnce()).toBe(0);
    expect(endpoint.received).toHaveLength(10);
    const log = await t.app.inject({
      method: 'GET',
      url: `/v1/webhook/${webhookId}/deliveries`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(log.json().deliveries[0]).toMatchObject({ id, status: 'failed', nextAttemptAt: null });
  });
});

describe('endpoints that are switched off', () => {
  it.each([
    ['deactivated', 'PUT', { active: false }],
    ['deleted', 'DELETE', undefined],
  ] as const)(
    'marks a delivery of a %s webhook failed without sending it',
    async (_state, method, payload) => {
      const endpoint = await receiver();
      const webhookId = await register(endpoint.url);
      const id = await deliver(webhookId);
      const res = await t.app.inject({
        method,
        url: `/v1/webhook/${webhookId}`,
        headers: { 'x-api-key': tenant.apiKey },
        ...(payload && { payload }),
      });
      expect(res.statusCode, res.body).toBe(200);

      expect(await dispatcher.runOnce()).toBe(1);
      expect(await deliveryRow(id)).toMatchObject({
        status: 'failed',
        lastError: 'the endpoint is inactive or deleted',
        lockedUntil: null,
        deliveredAt: null,
      });
      t.clock.advance(RETRY_FOR_MS);
      expect(await dispatcher.runOnce()).toBe(0);
      expect(endpoint.received).toEqual([]);
    },
  );
});

describe('with ALLOW_LOCAL_WEBHOOKS off', () => {
  let strictTenant: Tenant;
  let strictDispatcher: Dispatcher;
  beforeAll(async () => {
    strictTenant = await createTenant(strict.db, 'Production');
    strictDispatcher = dispatcherFor(strict);
  });

  /** A row registration would refuse, as left by an earlier setting or written by hand. */
  async function insertWebhook(url: string): Promise<string> {
    const id = `whk_${ulid()}`;
    const now = strict.clock.now();
    await strict.db.insert(webhooks).values({
      id,
      accountId: strictTenant.accountId,
      url,
      secretSealed: strict.secretBox.seal(`whsec_${randomBytes(32).toString('base64url')}`, id),
      createdAt: now,
      updatedAt: now,
    });
    return id;
  }

  it.each([
    [
      'a loopback name',
      (port: number) => `http://localhost:${port}/hooks`,
      'localhost resolves only to private addresses',
    ],
    [
      'a loopback address',
      (port: number) => `http://127.0.0.1:${port}/hooks`,
      '127.0.0.1 is a private address',
    ],
    [
      'an IPv4-mapped loopback address',
      (port: number) => `http://[::ffff:127.0.0.1]:${port}/hooks`,
      '::ffff:7f00:1 is a private address',
    ],
  ] as const)('never contacts %s; the attempt log says why', async (_kind, urlFor, error) => {
    const endpoint = await receiver();
    const port = Number(new URL(endpoint.url).port);
    const id = await deliver(await insertWebhook(urlFor(port)), strict);

    expect(await strictDispatcher.runOnce()).toBe(1);
    expect(endpoint.received).toEqual([]);
    expect(await deliveryRow(id, strict)).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: null,
      lastError: error,
    });
    expect((await attemptLog(id, strict)).map((a) => a.error)).toEqual([error]);

    // The receiver was up and takes a delivery where local webhooks are allowed: only the
    // policy kept the first one away. (Its 127.0.0.1 URL, so this holds without IPv6.)
    const allowed = await register(endpoint.url);
    await deliver(allowed);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await endpoint.waitFor(1)).toHaveLength(1);
  });
});

describe('two dispatchers on one outbox', () => {
  it('send 30 due deliveries exactly once between them', async () => {
    const endpoint = await receiver();
    const webhookId = await register(endpoint.url);
    const ids = await deliverMany(webhookId, 30);
    expect(new Set(ids).size).toBe(30);
    const [a, b] = [dispatcherFor(t), dispatcherFor(t)];

    const claimed: number[] = [];
    for (let round = 0; round < 5; round++) {
      const counts = await Promise.all([a.runOnce(), b.runOnce()]);
      claimed.push(...counts);
      if (counts.every((count) => count === 0)) break;
    }
    expect(claimed.reduce((sum, n) => sum + n, 0)).toBe(30);
    expect(endpoint.received).toHaveLength(30);
    const sent = endpoint.received.map((r) => String(r.headers['x-service-delivery']));
    expect(new Set(sent)).toEqual(new Set(ids));
    expect(endpoint.received.every((r) => r.headers['x-service-retry-count'] === '0')).toBe(true);
    expect(new Set(endpoint.received.map((r) => r.body.n)).size).toBe(30);

    const rows = await deliveriesTo(webhookId);
    expect(rows.every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
    const attempts = await Promise.all(ids.map((id) => attemptLog(id)));
    expect(attempts.every((log) => log.length === 1)).toBe(true);
  });
});

/** A receiver that holds every request until released. */
async function heldServer(): Promise<{ slow: Server; release: () => void }> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const slow = await startServer((_request, response) => {
    void held.then(() => response.writeHead(200).end());
  });
  return { slow, release };
}

describe('a running dispatcher', () => {
  // Its own account: the file's first has registered close to its 20 endpoints.
  let owner: Tenant;
  beforeAll(async () => {
    owner = await createTenant(t.db);
  });

  it('answers a wake that comes during a round with another round, not the next poll', async () => {
    const { slow, release } = await heldServer();
    const endpoint = await receiver();
    const running = dispatcherFor(t);
    // Polls an hour apart: only a wake can bring the second delivery out in this test.
    running.start(3_600_000);
    try {
      await deliver(await register(slow.url, owner));
      running.wake();
      await expect.poll(() => slow.paths.length).toBe(1);
      // Enqueued while the round is in flight, as a payment recorded meanwhile would be.
      const second = await deliver(await register(endpoint.url, owner));
      running.wake();
      release();
      const [received] = await endpoint.waitFor(1, 5_000);
      expect(received?.headers['x-service-delivery']).toBe(second);
    } finally {
      release();
      await running.stop();
    }
  });

  it('keeps at most 20 sends in flight, and a held receiver holds one slot, not a round', async () => {
    const { slow, release } = await heldServer();
    let open = 0;
    let mostOpen = 0;
    const paced = await startServer((_request, response) => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      setTimeout(() => {
        open -= 1;
        response.writeHead(204).end();
      }, 15);
    });
    const running = dispatcherFor(t);
    running.start(3_600_000);
    try {
      await deliver(await register(slow.url, owner));
      running.wake();
      await expect.poll(() => slow.paths.length).toBe(1);
      const pacedHook = await register(paced.url, owner);
      const ids = await deliverMany(pacedHook, 60);
      running.wake();
      // All 60 go out while the first receiver still holds its request.
      await expect.poll(() => paced.paths.length, { timeout: 10_000 }).toBe(60);
      expect(mostOpen).toBeLessThanOrEqual(19);
      expect(mostOpen).toBeGreaterThan(1);
      release();
      await running.stop();
      const rows = await deliveriesTo(pacedHook);
      expect(rows.map((row) => row.id).sort()).toEqual([...ids].sort());
      expect(rows.every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
      expect(rows.every((row) => row.lockedUntil === null && row.lastStatusCode === 204)).toBe(
        true,
      );
      const logged = await Promise.all(ids.map((id) => attemptLog(id)));
      expect(logged.every((log) => log.length === 1 && log[0]?.statusCode === 204)).toBe(true);
    } finally {
      release();
      await running.stop();
    }
  });

  it('records the rounds of sends that finish together in batches, not one statement each', async () => {
    // Answers in rounds: nothing until 20 requests wait, then all of them at once.
    const waiting: ServerResponse[] = [];
    const rounds = await startServer((_request, response) => {
      waiting.push(response);
      if (waiting.length === 20) for (const held of waiting.splice(0)) held.writeHead(204).end();
    });
    const webhookId = await register(rounds.url, owner);
    const running = dispatcherFor(t);
    running.start(3_600_000);
    try {
      await deliverMany(webhookId, 100);
      running.wake();
      await expect.poll(() => rounds.paths.length, { timeout: 10_000 }).toBe(100);
    } finally {
      await running.stop();
    }
    const rows = await deliveriesTo(webhookId);
    expect(rows.every((row) => row.status === 'delivered' && row.lockedUntil === null)).toBe(true);
    // A row's xmin is the transaction that last wrote it: the statement recording its attempt.
    // Recorded round by round, these were five statements.
    const [statements] = await queryRows<{ count: number }>(
      t.db,
      sql`select count(distinct xmin::text)::integer as count from webhook_deliveries
          where webhook_id = ${webhookId}`,
    );
    expect(statements?.count).toBeLessThanOrEqual(2);
  });

  it('records what was in flight before stop resolves', async () => {
    const endpoint = await receiver();
    const webhookId = await register(endpoint.url, owner);
    const running = dispatcherFor(t);
    running.start(3_600_000);
    const ids = await deliverMany(webhookId, 25);
    running.wake();
    await expect.poll(() => endpoint.received.length).toBeGreaterThan(0);
    await running.stop();
    const rows = await deliveriesTo(webhookId);
    // Whatever was claimed is settled; nothing is left leased.
    const claimed = rows.filter((row) => row.attempts > 0);
    expect(claimed.length).toBe(endpoint.received.length);
    expect(claimed.every((row) => row.status === 'delivered' && row.lockedUntil === null)).toBe(
      true,
    );
    expect(rows.map((row) => row.id).sort()).toEqual([...ids].sort());
  });
});
