import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createMetricsListener } from './listener.ts';

/**
 * Where `/metrics` is served: nowhere unless configured; with `METRICS_PORT`, on a listener of
 * its own (behind `METRICS_TOKEN` too when one is set) and not on the API's port.
 */

const TOKEN = 'listener-token-0123456789';

let plain: TestApp;
let apart: TestApp;
const servers: Server[] = [];

beforeAll(async () => {
  [plain, apart] = await Promise.all([
    createTestApp(),
    createTestApp({ env: { METRICS_PORT: '0', METRICS_TOKEN: TOKEN } }),
  ]);
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await Promise.all([plain?.close(), apart?.close()]);
});

/** The listener of `t`'s metrics on a free loopback port, as main.ts binds it. */
async function listen(t: TestApp, token: string | null): Promise<string> {
  const metrics = t.metrics;
  const config = t.config.metrics;
  if (!metrics || !config) throw new Error('the app has no metrics configured');
  const server = createMetricsListener(metrics, {
    ...config,
    token: token === null ? null : config.token,
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('metrics left unconfigured', () => {
  it('are neither collected nor served', async () => {
    expect(plain.config.metrics).toBeNull();
    expect(plain.metrics).toBeUndefined();
    const res = await plain.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(404);
    expect(plain.routes.map((r) => r.url)).not.toContain('/metrics');
  });
});

describe('metrics on a listener of their own (METRICS_PORT)', () => {
  it('are not served on the API’s port', async () => {
    const res = await apart.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(404);
  });

  it('answer only with the token when one is set', async () => {
    // First, the request the scrape must show (and none in between: a slow one would outlast
    // the fetches' kept-alive connection).
    await apart.app.inject({ method: 'GET', url: '/healthz' });
    const url = await listen(apart, TOKEN);
    const none = await fetch(`${url}/metrics`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'missing_credentials' });
    const wrong = await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(403);
    const right = await fetch(`${url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(right.status).toBe(200);
    const families = parsePrometheusTextFormat(await right.text());
    const requests = families.find((f) => f.name === 'payreq_http_requests_total');
    expect(requests?.metrics).toContainEqual({
      labels: { method: 'GET', route: '/healthz', status: '200' },
      value: '1',
    });
  });

  it('answer without a token when none is set, and serve nothing but /metrics', async () => {
    const url = await listen(apart, null);
    const open = await fetch(`${url}/metrics`);
    expect(open.status).toBe(200);
    expect(open.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(parsePrometheusTextFormat(await open.text()).length).toBeGreaterThan(10);
    expect((await fetch(`${url}/healthz`)).status).toBe(404);
    expect((await fetch(`${url}/metrics`, { method: 'POST', body: 'x' })).status).toBe(405);
  });
});
