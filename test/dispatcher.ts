import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { ulid } from '../src/base/ulid.ts';
import { webhookAttempts, webhookDeliveries } from '../src/db/schema.ts';
import { createDispatcher, type Dispatcher } from '../src/webhooks/dispatcher.ts';
import { claimLeaseMs } from '../src/webhooks/lease.ts';
import { enqueue } from '../src/webhooks/outbox.ts';
import { createTestApp, type TestApp } from './app.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

/**
 * What the dispatcher tests share (src/webhooks/dispatcher-*.test.ts): an app with local
 * webhooks allowed (and, for the address rules, one without) on short timeouts and retries, a
 * tenant and a dispatcher over it, real loopback servers that behave as each test asks, and the
 * outbox's rows and attempt log.
 */

export const TIMEOUT_MS = 300;
/** After the reference's three retries (1 s, 5 s, 15 s): 30 s, doubling up to 2 min, for 10 min. */
const RETRY_BASE_MS = 30_000;
export const RETRY_MAX_MS = 120_000;
export const RETRY_FOR_MS = 600_000;
/** The claim's lease: eleven attempts' timeouts plus the dispatcher's margin. */
export const LEASE_MS = claimLeaseMs(TIMEOUT_MS);

const ENV = {
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
  WEBHOOK_RETRY_MAX_MS: String(RETRY_MAX_MS),
  WEBHOOK_RETRY_FOR_MS: String(RETRY_FOR_MS),
};

export let t: TestApp; // ALLOW_LOCAL_WEBHOOKS on
let strict: TestApp | undefined; // ALLOW_LOCAL_WEBHOOKS off, when asked for
export let tenant: Tenant;
export let dispatcher: Dispatcher;
const closers: (() => Promise<void>)[] = [];

/** A dispatcher over `app`; `timeoutMs` replaces the file's attempt timeout. */
export function dispatcherFor(
  app: TestApp,
  random: () => number = () => 0.5,
  timeoutMs = app.config.webhooks.timeoutMs,
): Dispatcher {
  return createDispatcher({
    db: app.database.queue,
    clock: app.clock,
    logger: app.app.log as never,
    secretBox: app.secretBox,
    config: { ...app.config.webhooks, timeoutMs },
    random,
  });
}

/**
 * A dispatcher over the file's app that waits 10 s for an answer, for tests whose subject is not
 * timeouts: on a loaded machine (PGlite runs in the test's own thread) a 20 ms answer can take
 * longer than the file's 300 ms timeout, and a timed-out send is rightly retried later.
 */
export const patientDispatcher = (): Dispatcher => dispatcherFor(t, undefined, 10_000);

/**
 * Registers the file's app (ALLOW_LOCAL_WEBHOOKS on), its tenant and its dispatcher; with
 * `strict`, also an app with ALLOW_LOCAL_WEBHOOKS off. Each test file calls it once.
 */
export function setupDispatcherApps(options: { strict?: boolean } = {}): void {
  beforeAll(async () => {
    [t, strict] = await Promise.all([
      createTestApp({ env: { ...ENV, ALLOW_LOCAL_WEBHOOKS: 'true' } }),
      options.strict
        ? createTestApp({ env: { ...ENV, ALLOW_LOCAL_WEBHOOKS: 'false' } })
        : undefined,
    ]);
    tenant = await createTenant(t.db);
    // random 0.5 puts the jitter factor at exactly 1: each delay is the bare backoff.
    dispatcher = dispatcherFor(t);
  });
  // Each test owns its deliveries: whatever one leaves pending must not be retried in the next.
  afterEach(async () => {
    for (const app of strict ? [t, strict] : [t]) {
      await app.db
        .update(webhookDeliveries)
        .set({ status: 'failed' })
        .where(eq(webhookDeliveries.status, 'pending'));
    }
  });
  afterAll(async () => {
    receiversByUrl.clear();
    await Promise.all(closers.splice(0).map((close) => close()));
    await Promise.all([t.close(), strict?.close()]);
  });
}

/** The app with ALLOW_LOCAL_WEBHOOKS off: `setupDispatcherApps({ strict: true })` makes it. */
export function strictApp(): TestApp {
  if (strict === undefined) throw new Error('call setupDispatcherApps({ strict: true }) first');
  return strict;
}

export interface Server {
  readonly url: string;
  readonly port: number;
  /** Paths of the requests that reached it, in order. */
  readonly paths: string[];
}

/** A loopback server with the behaviour given; closed after the file. */
export async function startServer(
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

export async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  closers.push(() => started.close());
  receiversByUrl.set(started.url, started);
  return started;
}

export async function register(
  url: string,
  owner: Tenant = tenant,
  retryPolicy?: Record<string, number | null>,
): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': owner.apiKey },
    payload: { url, ...(retryPolicy && { retryPolicy }) },
  });
  expect(res.statusCode, res.body).toBe(201);
  receiversByUrl.get(url)?.verifyWith(res.json().secret);
  return res.json().id;
}

/** One delivery through the real outbox writer, due now. */
export async function deliver(webhookId: string, app: TestApp = t): Promise<string> {
  const [id] = await enqueue(
    app.db,
    app.clock.now(),
    [webhookId],
    [{ event: 'payment.confirmed', payload: { requestId: ulid() } }],
  );
  if (id === undefined) throw new Error('enqueue wrote nothing');
  return id;
}

export async function deliveryRow(id: string, app: TestApp = t) {
  const [row] = await app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  if (!row) throw new Error(`no delivery ${id}`);
  return row;
}

/** `count` deliveries to one endpoint, due now, each body numbered. */
export function deliverMany(webhookId: string, count: number): Promise<string[]> {
  return enqueue(
    t.db,
    t.clock.now(),
    [webhookId],
    Array.from({ length: count }, (_, n) => ({ event: 'payment.confirmed', payload: { n } })),
  );
}

export function deliveriesTo(webhookId: string) {
  return t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId));
}

export async function attemptLog(id: string, app: TestApp = t) {
  return app.db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, id))
    .orderBy(asc(webhookAttempts.attempt));
}

export const fromNow = (ms: number) => new Date(t.clock.now().getTime() + ms);
