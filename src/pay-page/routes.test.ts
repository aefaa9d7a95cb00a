import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebApp, PAY_PAGE, type WebAppManifest } from '../../scripts/build-web-app.ts';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { ensurePayPageClientId } from './client-id.ts';

/**
 * The pay page over HTTP on the real app, serving a real build of the page (made once here):
 * the shell with its headers and configuration, the hashed assets, PAY_URL with a path, and
 * the answer when nothing is built.
 */

const API_ORIGIN = 'http://api.payreq.test';
const EXPECTED_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

let dir: string;
let manifest: WebAppManifest;
/** Default settings: the page at the API's own origin, at its root. */
let t: TestApp;
/** PAY_URL on another origin, with a path, and framing allowed to two origins. */
let pathed: TestApp;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payreq-pay-page-'));
  manifest = await buildWebApp(PAY_PAGE, dir);
  t = await createTestApp({ payPageDir: dir });
  pathed = await createTestApp({
    payPageDir: dir,
    env: {
      PAY_URL: 'http://pay.test/pay/',
      PAY_FRAME_ANCESTORS: 'self https://shop.example',
    },
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await pathed?.close();
});

/** The payreq-config meta tag's content, unescaped as a browser reads the attribute. */
function configOf(html: string): unknown {
  const content = /<meta name="payreq-config" content="([^"]*)">/.exec(html)?.[1];
  if (content === undefined) throw new Error('no payreq-config meta tag');
  const text = content
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
  return JSON.parse(text);
}

function asset(app: TestApp, url: string, acceptEncoding?: string) {
  return app.app.inject({
    method: 'GET',
    url,
    headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding },
  });
}

describe('the HTML shell', () => {
  it('answers PAY_URL/ with the shell and its security headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/?token=01KAAAAAAAAAAAAAAAAAAAAAAA' });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'content-security-policy': EXPECTED_CSP,
    });
    expect(res.body.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(res.body).toContain(`<link rel="stylesheet" href="/assets/${manifest.styles}">`);
    expect(res.body).toContain(`<script type="module" src="/assets/${manifest.main}"></script>`);
    expect(res.body).toContain('<meta name="robots" content="noindex">');
    expect(res.body).toContain(
      '<div id="app"><main class="card" data-screen="loading"><h1>Loading the payment…</h1></main></div>',
    );
    expect(res.body).toMatch(/<noscript>[^<]*needs JavaScript[^<]*<\/noscript>/);
    // No inline script for the CSP to allow: the one script is the built file.
    expect(res.body.match(/<script/g)).toHaveLength(1);
    expect(Buffer.byteLength(res.body)).toBeLessThan(8_192);
    // Built once: the same string on every answer.
    expect((await t.app.inject({ method: 'GET', url: '/' })).body).toBe(res.body);
  });

  it('tells the page where the API is, its client ID and every network’s facts', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    const config = configOf(res.body) as {
      apiBase: string;
      clientId: string;
      networks: Record<string, unknown>;
    };
    expect(config.apiBase).toBe(API_ORIGIN);
    expect(config.clientId).toBe(await ensurePayPageClientId(t.db, t.config.payUrl));
    expect(Object.keys(config.networks).sort()).toEqual([...t.chains.networkIds].sort());
    expect(config.networks.base).toEqual({
      name: 'Base',
      chainId: 8453,
      kind: 'evm',
      native: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      explorerTxUrl: 'https://basescan.org/tx/{txHash}',
      rpcUrl: null,
      intentChain: 'BASE',
    });
    expect(config.networks.tron).toMatchObject({ kind: 'tron', chainId: 728126428 });
    // The sandbox does not run in tests: neither it nor an RPC URL is given.
    expect(config.networks.sandbox).toBeUndefined();
  });

  it('serves the page and its assets under PAY_URL’s path, and lets the CSP reach the API’s origin', async () => {
    for (const url of ['/pay/', '/pay', '/pay/?token=01KAAAAAAAAAAAAAAAAAAAAAAA']) {
      const res = await pathed.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain(`src="/pay/assets/${manifest.main}"`);
      expect(res.body).toContain(`href="/pay/assets/${manifest.styles}"`);
    }
    const res = await pathed.app.inject({ method: 'GET', url: '/pay/' });
    expect(res.headers['content-security-policy']).toBe(
      EXPECTED_CSP.replace("connect-src 'self'", `connect-src 'self' ${API_ORIGIN}`).replace(
        "frame-ancestors 'none'",
        "frame-ancestors 'self' https://shop.example",
      ),
    );
    // X-Frame-Options can only deny or allow the same origin: left out when origins may frame.
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect((configOf(res.body) as { apiBase: string }).apiBase).toBe(API_ORIGIN);
    expect((await asset(pathed, `/pay/assets/${manifest.main}`)).statusCode).toBe(200);
    expect((await asset(pathed, `/assets/${manifest.main}`)).statusCode).toBe(404);
    expect((await pathed.app.inject({ method: 'GET', url: '/' })).statusCode).toBe(404);
  });

  it('answers 503 pay_page_not_built when nothing is built, and the API still works', async () => {
    const unbuilt = await createTestApp({
      payPageDir: mkdtempSync(join(tmpdir(), 'payreq-unbuilt-')),
    });
    try {
      const res = await unbuilt.app.inject({ method: 'GET', url: '/' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        statusCode: 503,
        message: 'The pay page is not built: run `npm run build`',
        error: 'Service Unavailable',
        code: 'pay_page_not_built',
      });
      expect((await asset(unbuilt, `/assets/${manifest.main}`)).statusCode).toBe(404);
      expect((await unbuilt.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect(unbuilt.logs.text()).toContain('the pay page is not built');
    } finally {
      await unbuilt.close();
    }
  });
});

describe('the assets', () => {
  it('serves a built file with a year of immutable caching', async () => {
    const res = await asset(t, `/assets/${manifest.main}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      vary: 'accept-encoding',
    });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.rawPayload.equals(readFileSync(join(dir, manifest.main)))).toBe(true);
    const styles = await asset(t, `/assets/${manifest.styles}`);
    expect(styles.statusCode).toBe(200);
    expect(styles.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(styles.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers brotli or gzip to a request that accepts it', async () => {
    const original = readFileSync(join(dir, manifest.main));
    const br = await asset(t, `/assets/${manifest.main}`, 'gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(brotliDecompressSync(br.rawPayload).equals(original)).toBe(true);
    expect(br.rawPayload.length).toBeLessThan(original.length);
    const gzip = await asset(t, `/assets/${manifest.main}`, 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).equals(original)).toBe(true);
    const refused = await asset(t, `/assets/${manifest.main}`, 'br;q=0, gzip;q=0');
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.rawPayload.equals(original)).toBe(true);
  });

  it.each([
    ['an unknown file', '/assets/main-UNKNOWN.js'],
    ['the manifest, which is not an asset', '/assets/manifest.json'],
    ['a path out of the folder', '/assets/..%2F..%2Fpackage.json'],
    ['an encoded dot-dot path', '/assets/%2e%2e%2f%2e%2e%2fpackage.json'],
    ['a backslash path', '/assets/..%5C..%5Cpackage.json'],
    ['an absolute path', '/assets/%2Fetc%2Fpasswd'],
    ['a nested path', '/assets/x/..%2Fmanifest.json'],
  ])('answers 404 in the envelope for %s', async (_name, url) => {
    const res = await asset(t, url);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ statusCode: 404, code: 'route_not_found' });
    expect(res.headers['cache-control']).toBeUndefined();
  });

  it('keeps the page’s routes out of the OpenAPI document', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths).filter((path) => !path.startsWith('/v'))).toEqual([
      '/healthz',
      '/readyz',
    ]);
    const page = t.routes.filter((route) => route.url === '/' || route.url.startsWith('/assets'));
    expect(page.map((route) => [route.url, route.hidden, route.auth])).toEqual([
      ['/', true, undefined],
      ['/assets/:file', true, undefined],
    ]);
  });
});
