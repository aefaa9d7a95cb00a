import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebApp, PAY_PAGE, type WebAppManifest } from '../../scripts/build-web-app.ts';
import { createTestApp, type TestApp } from '../../test/app.ts';

/**
 * The shell of a link intent's page over HTTP, on a real build: the pay page's build under its
 * own words, what the page needs of the auth API, and headers that never let it be framed.
 */

const TOKEN = `lki_${'A'.repeat(43)}`;
const API_ORIGIN = 'http://api.payreq.test';
const AUTH_ORIGIN = 'https://auth.payreq.test';

let dir: string;
let manifest: WebAppManifest;
/** The page at the API's own origin, at its root. */
let t: TestApp;
/** PAY_URL with a path, the auth API on another origin, framing of the payment page allowed. */
let split: TestApp;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payreq-intent-page-'));
  manifest = await buildWebApp(PAY_PAGE, dir);
  t = await createTestApp({ payPageDir: dir });
  split = await createTestApp({
    payPageDir: dir,
    env: {
      PAY_URL: 'http://pay.test/pay/',
      AUTH_URL: AUTH_ORIGIN,
      PAY_FRAME_ANCESTORS: 'self https://shop.example',
    },
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await split?.close();
});

interface IntentConfig {
  readonly apiBase: string;
  readonly intent: {
    readonly authBase: string;
    readonly currencies: Record<string, { symbol: string; address: string }[]>;
  };
}

function configOf(html: string): IntentConfig {
  const content = /<meta name="payreq-config" content="([^"]*)">/.exec(html)?.[1] ?? '';
  return JSON.parse(content.replaceAll('&quot;', '"').replaceAll('&amp;', '&')) as IntentConfig;
}

describe('a link intent’s page', () => {
  it('answers <PAY_URL>/link/<token> with the pay page’s build, in its own words, unframeable', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/link/${TOKEN}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'content-security-policy':
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    });
    expect(res.body).toContain(`<script type="module" src="/assets/${manifest.main}"></script>`);
    expect(res.body).toContain('<title>Link your account</title>');
    expect(res.body).toContain('<h1>Loading the invitation…</h1>');
    // The same answer whatever the token: the page checks it with the auth API, signed in.
    const unknown = await t.app.inject({ method: 'GET', url: '/link/nonsense' });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).toBe(res.body);
  });

  it('tells the page the auth API and the tokens a destination takes, per EVM network', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/link/${TOKEN}` });
    const config = configOf(res.body);
    expect(config.intent.authBase).toBe(t.config.authUrl);
    expect(config.intent.currencies.base?.[0]).toEqual({
      symbol: 'USDC',
      address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    });
    for (const [id, tokens] of Object.entries(config.intent.currencies)) {
      const network = t.chains.networks.find((n) => n.id === id);
      expect(network?.kind, id).toBe('evm');
      for (const token of tokens) {
        const named = network && t.chains.currencyByToken(network.id, token.address);
        expect(named?.symbol, `${id} ${token.symbol}`).toBe(token.symbol);
      }
    }
    expect(config.intent.currencies.tron).toBeUndefined();
    // The payment page's shell carries none of it.
    const pay = await t.app.inject({ method: 'GET', url: '/' });
    expect(pay.body).not.toContain('authBase');
  });

  it('lives under PAY_URL’s path, reaches the auth API’s origin, and is never framed', async () => {
    const res = await split.app.inject({ method: 'GET', url: `/pay/link/${TOKEN}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`src="/pay/assets/${manifest.main}"`);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain(`connect-src 'self' ${API_ORIGIN} ${AUTH_ORIGIN};`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(configOf(res.body).intent.authBase).toBe(AUTH_ORIGIN);
    expect((await split.app.inject({ method: 'GET', url: `/link/${TOKEN}` })).statusCode).toBe(404);
  });

  it('answers 503 pay_page_not_built when nothing is built', async () => {
    const unbuilt = await createTestApp({
      payPageDir: mkdtempSync(join(tmpdir(), 'payreq-unbuilt-')),
    });
    try {
      const res = await unbuilt.app.inject({ method: 'GET', url: `/link/${TOKEN}` });
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('pay_page_not_built');
    } finally {
      await unbuilt.close();
    }
  });

  it('stays out of the OpenAPI document', async () => {
    const route = t.routes.find((r) => r.url === '/link/:token');
    expect(route).toMatchObject({ hidden: true, auth: undefined });
  });
});
