import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebApp, DASHBOARD, type WebAppManifest } from '../../scripts/build-web-app.ts';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { intentShellHeaders } from '../pay-page/intent-shell.ts';
import { sameSite } from './shell.ts';

/**
 * The dashboard over HTTP on the real app, serving a real build (made once here): its shell at
 * DASHBOARD_URL's path and every page under it, with the signed-in intent page's headers and a
 * configuration naming the APIs; its hashed assets; 503 when nothing is built; and no
 * dashboard where DASHBOARD_URL shares the pay page's path.
 */

const SETTINGS = {
  baseUrl: 'http://api.payreq.test',
  authUrl: 'http://auth.payreq.test',
  payUrl: 'http://api.payreq.test',
  payFrameAncestors: "'self'",
};

let dir: string;
let manifest: WebAppManifest;
/** The default place, /dashboard at the pay page's origin; the auth API elsewhere. */
let t: TestApp;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payreq-dashboard-'));
  manifest = await buildWebApp(DASHBOARD, dir);
  t = await createTestApp({
    dashboardDir: dir,
    env: {
      BASE_URL: SETTINGS.baseUrl,
      PAY_URL: SETTINGS.payUrl,
      AUTH_URL: SETTINGS.authUrl,
      PAY_FRAME_ANCESTORS: 'self',
    },
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** The payreq-config meta tag's content, unescaped as a browser reads the attribute. */
function configOf(html: string): unknown {
  const content = /<meta name="payreq-config" content="([^"]*)">/.exec(html)?.[1];
  if (content === undefined) throw new Error('no payreq-config meta tag');
  return JSON.parse(content.replaceAll('&quot;', '"').replaceAll('&amp;', '&'));
}

describe('the dashboard’s shell', () => {
  it('answers at /dashboard/ with its configuration, naming the built files', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard/' });
    expect(res.statusCode).toBe(200);
    // The API on the dashboard's origin is called by path; the auth API on its own, by URL.
    const config = configOf(res.body) as Record<string, unknown>;
    expect(config).toEqual({
      basePath: '/dashboard',
      apiBase: '',
      authBase: SETTINGS.authUrl,
      explorers: Object.fromEntries(
        t.chains.networks.map((n) => [n.id, t.chains.explorerTxUrl(n.id, '{txHash}')]),
      ),
      networks: t.chains.networks.map((n) => ({
        id: n.id,
        name: n.name,
        chainId: n.chainId,
        kind: n.kind,
      })),
      tokens: expect.any(Array),
    });
    expect(config.tokens).toContainEqual({
      id: 'USDC-base',
      symbol: 'USDC',
      address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      network: 'base',
    });
    expect(config.tokens).toContainEqual(
      expect.objectContaining({
        symbol: 'ETH',
        network: 'base',
        address: '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE',
      }),
    );
    // The token list's others are not offered: destinations refuse them.
    expect((config.tokens as unknown[]).length).toBeLessThan(60);
    expect(config.networks).toContainEqual({
      id: 'base',
      name: 'Base',
      chainId: 8453,
      kind: 'evm',
    });
    expect((config.explorers as Record<string, string>).base).toBe(
      'https://basescan.org/tx/{txHash}',
    );
    expect(res.body).toContain(`<script type="module" src="/dashboard/assets/${manifest.main}">`);
    expect(res.body).toContain(`href="/dashboard/assets/${manifest.styles}"`);
    expect(res.body).toContain('<title>payreq dashboard</title>');
  });

  it('sends the signed-in intent page’s headers: no framing, calls to the API and auth API only', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard/' });
    const expected = intentShellHeaders(SETTINGS);
    for (const name of [
      'content-security-policy',
      'x-frame-options',
      'referrer-policy',
      'x-content-type-options',
      'cache-control',
    ]) {
      expect(res.headers[name], name).toBe(expected[name]);
    }
    expect(res.headers['content-security-policy']).toContain(
      "connect-src 'self' http://auth.payreq.test; ",
    );
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('answers the same shell for every page under it and without the slash, so addresses reload', async () => {
    const home = await t.app.inject({ method: 'GET', url: '/dashboard/' });
    for (const url of ['/dashboard', '/dashboard/payments', '/dashboard/links/abc?x=1']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(home.body);
    }
  });

  it('serves the hashed assets for a year, compressed, and nothing it did not build', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/dashboard/assets/${manifest.main}`,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(res.rawPayload).toString()).toContain('payreq-config');
    for (const url of ['/dashboard/assets/manifest.json', '/dashboard/assets/a/b']) {
      const missing = await t.app.inject({ method: 'GET', url });
      expect(missing.statusCode, url).toBe(404);
      expect(missing.json(), url).toMatchObject({ statusCode: 404 });
    }
  });

  it('leaves the API’s unknown paths to the API: a JSON 404, not the shell', async () => {
    for (const url of ['/v2/nonexistent', '/v1/nonexistent', '/nonexistent']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
    }
  });

  it('answers 503 dashboard_not_built when nothing is built, and the API still works', async () => {
    const unbuilt = await createTestApp({
      dashboardDir: mkdtempSync(join(tmpdir(), 'payreq-unbuilt-')),
    });
    try {
      const res = await unbuilt.app.inject({ method: 'GET', url: '/dashboard/' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'dashboard_not_built' });
      expect((await unbuilt.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await unbuilt.close();
    }
  });

  it.each([
    [
      'the pay page’s path',
      { PAY_URL: 'http://api.payreq.test/pay', DASHBOARD_URL: 'http://api.payreq.test/pay' },
      '/pay/',
      // The pay page's own shell (or its 503 while unbuilt in this app).
      [200, 503],
    ],
    ['an origin’s root', { DASHBOARD_URL: 'http://dashboard.example' }, '/dashboard/', [404]],
    ['the API’s paths', { DASHBOARD_URL: 'http://api.payreq.test/v2' }, '/v2/x', [404]],
  ])('serves no dashboard at %s (it lives elsewhere)', async (_name, env, url, statuses) => {
    const elsewhere = await createTestApp({ dashboardDir: dir, env });
    try {
      const res = await elsewhere.app.inject({ method: 'GET', url });
      expect(statuses).toContain(res.statusCode);
      expect(res.body).not.toContain('payreq dashboard');
      const assets = await elsewhere.app.inject({
        method: 'GET',
        url: `/dashboard/assets/${manifest.main}`,
      });
      expect(assets.statusCode).toBe(404);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('sameSite', () => {
  it.each([
    ['http://localhost:8080/dashboard', 'http://localhost:8080', true],
    ['https://dash.example.com', 'https://api.example.com', true],
    ['https://example.com/dashboard', 'https://auth.example.com', true],
    ['http://localhost:8080', 'http://127.0.0.1:8080', false],
    ['https://dash.example.com', 'https://api.other.com', false],
    ['http://dash.example.com', 'https://api.example.com', false],
    ['http://127.0.0.1:1', 'http://127.0.0.1:2', true],
  ])('%s with %s: %s', (dashboard, auth, expected) => {
    expect(sameSite(dashboard, auth)).toBe(expected);
  });
});
