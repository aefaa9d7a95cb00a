import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { type StandIn, standIn } from '../../test/chain.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { family, sample, scrape } from '../../test/metrics.ts';
import { type Receiver, startReceiver } from '../../test/webhook-receiver.ts';
import { createRateLimiter } from '../http/rate-limit.ts';
import { enqueue } from '../webhooks/outbox.ts';
import { createWorkers, type Workers } from '../workers/workers.ts';

/**
 * `/metrics` as Prometheus reads it (the text-format parser), on a real app with the real
 * workers over a local chain: each metric moves when what it counts happens (requests, a
 * rate-limit refusal, webhook deliveries to a real receiver, blocks mined), and the scrape is
 * refused without the token.
 */

const TOKEN = 'metrics-token-0123456789';
const CONFIRMATIONS = 2;
/** Anonymous calls to the currency list per IP and minute, before 429. */
const ANONYMOUS_LIMIT = 2;

let local: StandIn;
let t: TestApp;
let workers: Workers;
let receiver: Receiver;
let tenant: Tenant;

beforeAll(async () => {
  local = await standIn('base');
  receiver = await startReceiver();
  t = await createTestApp({
    env: {
      ...local.env,
      METRICS_TOKEN: TOKEN,
      ALLOW_LOCAL_WEBHOOKS: 'true',
      CONFIRMATIONS_BASE: String(CONFIRMATIONS),
    },
    transports: local.transports,
    rateLimiter: ({ clock, logger }) => createRateLimiter({ redisUrl: null, clock, logger }),
    limits: { clientId: ANONYMOUS_LIMIT },
  });
  tenant = await createTenant(t.db);
  workers = createWorkers({
    config: t.config,
    database: t.database,
    chains: t.chains,
    clients: t.clients,
    logger: pino({ level: 'silent' }),
    clock: t.clock,
    secretBox: t.secretBox,
    transportNetworks: ['base'],
    ...(t.metrics && { metrics: t.metrics }),
  });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await local?.chain.close();
});

describe('GET /metrics', () => {
  it('is refused without the token (401) and with a wrong one (403)', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ code: 'missing_credentials' });
    expect(none.body).not.toContain('payreq_');
    for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, 'Bearer x']) {
      const wrong = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization },
      });
      expect(wrong.statusCode, authorization).toBe(403);
      expect(wrong.json()).toMatchObject({ code: 'credential_not_accepted' });
    }
    const basic = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Basic ${TOKEN}` },
    });
    expect(basic.statusCode).toBe(401);
  });

  it('parses as the Prometheus text format, with the process metrics', async () => {
    const families = await scrape(t, TOKEN);
    expect(family(families, 'process_cpu_user_seconds_total').type).toBe('COUNTER');
    expect(family(families, 'payreq_http_request_duration_seconds').type).toBe('HISTOGRAM');
    expect(sample(families, 'payreq_database_up')).toBe(1);
  });

  it('is not in the OpenAPI document', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths)).not.toContain('/metrics');
    expect(t.routes.find((r) => r.url === '/metrics')?.hidden).toBe(true);
  });
});

describe('the HTTP metrics', () => {
  it('count answers by route pattern and status, never by the raw URL', async () => {
    const route = '/v2/request/:requestId';
    const before = await scrape(t, TOKEN);
    for (let n = 0; n < 3; n += 1) {
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    }
    const unauthenticated = await t.app.inject({ method: 'GET', url: '/v2/request/rq-secret-id' });
    expect(unauthenticated.statusCode).toBe(401);
    await t.app.inject({ method: 'GET', url: '/no/such/path' });
    const after = await scrape(t, TOKEN);

    const healthz = { method: 'GET', route: '/healthz', status: '200' };
    const total = 'payreq_http_requests_total';
    expect(sample(after, total, healthz) - sample(before, total, healthz)).toBe(3);
    const guarded = { method: 'GET', route, status: '401' };
    expect(sample(after, total, guarded) - sample(before, total, guarded)).toBe(1);
    const stray = { route: 'unmatched', status: '404' };
    expect(sample(after, total, stray) - sample(before, total, stray)).toBe(1);
    const latency = 'payreq_http_request_duration_seconds_count';
    const healthLatency = { method: 'GET', route: '/healthz' };
    expect(sample(after, latency, healthLatency) - sample(before, latency, healthLatency)).toBe(3);
    const labels = family(after, total).metrics.map((m) => JSON.stringify(m.labels));
    expect(labels.join()).not.toContain('rq-secret-id');
    expect(labels.join()).not.toContain('/no/such/path');
  });

  it('count the refusals of a rate limit', async () => {
    const url = '/v2/currencies?id=USDC-base';
    const before = await scrape(t, TOKEN);
    const statuses: number[] = [];
    for (let n = 0; n < ANONYMOUS_LIMIT + 2; n += 1) {
      statuses.push((await t.app.inject({ method: 'GET', url })).statusCode);
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    const after = await scrape(t, TOKEN);
    const route = { route: '/v2/currencies' };
    const refused = 'payreq_rate_limited_total';
    expect(sample(after, refused, route) - sample(before, refused, route)).toBe(2);
  });
});

describe('the webhook metrics', () => {
  it('show queued deliveries in the outbox and count them once delivered', async () => {
    const registered = await t.app.inject({
      method: 'POST',
      url: '/v1/webhook',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { url: receiver.url },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    receiver.verifyWith(registered.json().secret);
    const events = [1, 2, 3].map((n) => ({ event: 'payment.confirmed', payload: { n } }));
    await enqueue(t.db, t.clock.now(), [registered.json().id], events);
    t.clock.advance(5_000);

    const queued = await scrape(t, TOKEN);
    expect(sample(queued, 'payreq_outbox_pending')).toBe(3);
    expect(sample(queued, 'payreq_outbox_due')).toBe(3);
    expect(sample(queued, 'payreq_outbox_oldest_pending_age_seconds')).toBe(5);
    expect(sample(queued, 'payreq_outbox_oldest_due_lag_seconds')).toBe(5);

    expect(await workers.dispatcher.runOnce()).toBe(3);
    await receiver.waitFor(3);
    expect(receiver.refused).toEqual([]);
    const sent = await scrape(t, TOKEN);
    const attempts = 'payreq_webhook_attempts_total';
    const delivered = { outcome: 'delivered' };
    expect(sample(sent, attempts, delivered) - sample(queued, attempts, delivered)).toBe(3);
    expect(sample(sent, 'payreq_outbox_pending')).toBe(0);
    expect(sample(sent, 'payreq_outbox_oldest_pending_age_seconds')).toBe(0);

    // A receiver that answers 500: the attempt is counted as one to retry.
    receiver.respondWith(500);
    await enqueue(t.db, t.clock.now(), [registered.json().id], events.slice(0, 1));
    expect(await workers.dispatcher.runOnce()).toBe(1);
    const failed = await scrape(t, TOKEN);
    const retrying = { outcome: 'retrying' };
    expect(sample(failed, attempts, retrying) - sample(sent, attempts, retrying)).toBe(1);
    expect(sample(failed, 'payreq_outbox_pending')).toBe(1);
    expect(sample(failed, 'payreq_outbox_due')).toBe(0);
  });
});

describe('the indexer metrics', () => {
  it('follow the head and the recorded block as blocks are mined', async () => {
    const [indexer] = workers.indexers;
    if (!indexer) throw new Error('no indexer for the stand-in');
    const client = t.clients.evm('base');
    await indexer.tick();
    const first = await scrape(t, TOKEN);
    const network = { network: 'base' };
    const head = Number(await client.getBlockNumber());
    expect(sample(first, 'payreq_indexer_head_block', network)).toBe(head);
    expect(sample(first, 'payreq_indexer_indexed_block', network)).toBe(head - CONFIRMATIONS);
    expect(sample(first, 'payreq_indexer_lag_blocks', network)).toBe(0);

    for (let n = 0; n < 5; n += 1) await local.chain.provider.request({ method: 'evm_mine' });
    await indexer.tick();
    const second = await scrape(t, TOKEN);
    expect(sample(second, 'payreq_indexer_head_block', network)).toBe(head + 5);
    expect(sample(second, 'payreq_indexer_indexed_block', network)).toBe(head + 5 - CONFIRMATIONS);
    expect(sample(second, 'payreq_indexer_lag_blocks', network)).toBe(0);
  });
});

describe('the indexer lag', () => {
  it('counts the blocks deep enough to scan that are not recorded yet, never below 0', async () => {
    const metrics = t.metrics;
    if (!metrics) throw new Error('METRICS_TOKEN is set: the app has metrics');
    const network = { network: 'tron' };
    metrics.indexerProgress('tron', { head: 120n, target: 100n, indexed: 90n });
    expect(sample(await scrape(t, TOKEN), 'payreq_indexer_lag_blocks', network)).toBe(10);
    metrics.indexerProgress('tron', { head: 121n, target: 101n, indexed: 101n });
    expect(sample(await scrape(t, TOKEN), 'payreq_indexer_lag_blocks', network)).toBe(0);
    // A node behind our checkpoint (the indexer waits for it): no negative lag.
    metrics.indexerProgress('tron', { head: 90n, target: 70n, indexed: 101n });
    expect(sample(await scrape(t, TOKEN), 'payreq_indexer_lag_blocks', network)).toBe(0);
  });
});

describe('the database metrics', () => {
  it('report the executors’ and trackers’ in-flight states, and the Postgres pools', async () => {
    const families = await scrape(t, TOKEN);
    const work = family(families, 'payreq_work_items');
    expect(work.metrics.map((m) => `${m.labels?.worker}:${m.labels?.state}`)).toContain(
      'safe_tracker:tracking',
    );
    expect(sample(families, 'payreq_work_items', { worker: 'bridge_tracker' })).toBe(0);
    const connections = 'payreq_database_connections';
    if (t.database.kind === 'postgres') {
      expect(sample(families, connections, { pool: 'main', state: 'total' })).toBeGreaterThan(0);
      expect(sample(families, connections, { pool: 'main', state: 'waiting' })).toBe(0);
    } else {
      // One embedded connection: no pool to report.
      expect(families.find((f) => f.name === connections)?.metrics ?? []).toEqual([]);
    }
    expect(sample(families, 'payreq_database_scrape_seconds')).toBeGreaterThan(0);
  });
});
