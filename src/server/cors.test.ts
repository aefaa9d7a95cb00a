import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, SHOP_ORIGIN, type Tenant } from '../../test/fixtures.ts';
import type { Eip1193Provider } from '../sandbox/chain.ts';
import { sandboxRoutes } from '../sandbox/routes.ts';
import { EXPOSED_HEADERS } from './cors.ts';

const DASHBOARD = 'https://dashboard.payreq.test';
const ELSEWHERE = 'https://evil.example';

describe('CORS', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp({
      env: { DASHBOARD_URL: `${DASHBOARD}/app` },
      // The sandbox chain's JSON-RPC, answered by a provider that knows one method.
      extend: (app) =>
        sandboxRoutes(app, {
          provider: { request: async () => '0x7a69' } as unknown as Eip1193Provider,
        }),
    });
    tenant = await createTenant(t.db);
  });
  afterAll(() => t.close());

  const preflight = (url: string, origin: string, method = 'GET', headers = 'x-client-id') =>
    t.app.inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': headers,
      },
    });

  describe('preflights', () => {
    it('succeed on every route that takes a client ID, for the method asked', async () => {
      const clientIdRoutes = t.routes.filter(
        (r) => r.auth?.includes('clientId') && !r.url.includes('*'),
      );
      expect(clientIdRoutes.length).toBeGreaterThan(10);
      for (const route of clientIdRoutes) {
        const url = route.url.replace(/:[A-Za-z]+/g, '01HZZZZZZZZZZZZZZZZZZZZZZZ');
        const res = await preflight(url, SHOP_ORIGIN, route.method);
        expect(res.statusCode, `${route.method} ${route.url}`).toBe(204);
        expect(res.headers['access-control-allow-origin']).toBe(SHOP_ORIGIN);
        expect(res.headers['access-control-allow-methods']).toBe(route.method);
        expect(res.headers['access-control-allow-headers']).toContain('x-client-id');
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
        expect(res.headers.vary).toContain('Origin');
      }
    });

    it('allow x-platform-id, which clients of the reference send and we ignore', async () => {
      const res = await preflight('/v2/request', SHOP_ORIGIN, 'POST', 'x-client-id,x-platform-id');
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-headers']).toContain('x-platform-id');
    });

    it('grant nothing on routes that take only server-side credentials', async () => {
      for (const [method, url] of [
        ['POST', '/v2/client-ids'],
        ['GET', '/v2/orchestrators/client-ids'],
      ] as const) {
        const res = await preflight(url, SHOP_ORIGIN, method, 'x-api-key');
        expect(res.statusCode, url).toBe(404);
        expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
      }
    });

    it('grant the dashboard the auth API with credentials, and no other origin', async () => {
      const dash = await preflight('/v1/auth/wallet/challenge', DASHBOARD, 'POST', 'content-type');
      expect(dash.statusCode).toBe(204);
      expect(dash.headers['access-control-allow-origin']).toBe(DASHBOARD);
      expect(dash.headers['access-control-allow-credentials']).toBe('true');
      const session = await preflight('/v1/api-keys', DASHBOARD, 'GET', 'content-type');
      expect(session.headers['access-control-allow-credentials']).toBe('true');

      const other = await preflight('/v1/auth/wallet/challenge', ELSEWHERE, 'POST');
      expect(other.statusCode).toBe(404);
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('grant PAY_URL’s origin what a link intent’s page calls, Bearer only, and nothing else', async () => {
      const pay = new URL(t.config.payUrl).origin;
      for (const [method, url] of [
        ['POST', '/v1/auth/wallet/challenge'],
        ['POST', '/v1/auth/wallet/verify'],
        ['GET', `/v1/client-id-links/intents/lki_${'A'.repeat(43)}`],
        ['POST', `/v1/client-id-links/intents/lki_${'A'.repeat(43)}`],
        ['GET', '/v1/payee-destination'],
        ['POST', '/v1/payee-destination'],
      ] as const) {
        const res = await preflight(url, pay, method, 'authorization,content-type');
        expect(res.statusCode, `${method} ${url}`).toBe(204);
        expect(res.headers['access-control-allow-origin']).toBe(pay);
        expect(res.headers['access-control-allow-headers']).toContain('authorization');
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      }
      for (const [method, url] of [
        ['GET', '/v1/api-keys'],
        ['PUT', '/v1/payee-destination'],
        ['POST', '/v1/auth/logout'],
      ] as const) {
        const res = await preflight(url, pay, method, 'authorization');
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    });
  });

  describe('answers', () => {
    const get = (origin: string | undefined, clientId: string) =>
      t.app.inject({
        method: 'GET',
        url: '/v2/currencies?id=USDC-base',
        headers: { 'x-client-id': clientId, ...(origin && { origin }) },
      });

    it('grant any origin an anonymous lookup of currencies, without credentials', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/v2/currencies?id=USDC-base',
        headers: { origin: ELSEWHERE },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      const guarded = await t.app.inject({
        method: 'GET',
        url: '/v2/request',
        headers: { origin: ELSEWHERE },
      });
      expect(guarded.statusCode).toBe(401);
      expect(guarded.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('grant the origin only when it is an allowed domain of the client ID', async () => {
      const allowed = await get(SHOP_ORIGIN, tenant.browserClientId);
      expect(allowed.statusCode).toBe(200);
      expect(allowed.headers['access-control-allow-origin']).toBe(SHOP_ORIGIN);
      expect(allowed.headers.vary).toContain('Origin');
      expect(allowed.headers['access-control-allow-credentials']).toBeUndefined();
      expect(String(allowed.headers['access-control-expose-headers']).split(', ')).toEqual(
        EXPOSED_HEADERS,
      );

      const refused = await get(ELSEWHERE, tenant.browserClientId);
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();

      // A backend client ID has no allowed domains: it is for servers, never a browser.
      const backend = await get(SHOP_ORIGIN, tenant.backendClientId);
      expect(backend.statusCode).toBe(200);
      expect(backend.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('keep the grant on the client ID’s errors, so the page can read them', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments',
        headers: { 'x-client-id': tenant.browserClientId, origin: SHOP_ORIGIN },
        payload: { requests: [] },
      });
      expect(res.statusCode).toBe(400);
      expect(res.headers['access-control-allow-origin']).toBe(SHOP_ORIGIN);
    });

    it('grant nothing on a server-side route, whatever the origin', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/v2/client-ids',
        headers: { 'x-api-key': tenant.apiKey, origin: SHOP_ORIGIN },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('let the dashboard read a refused session, with credentials and never *', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/v1/api-keys',
        headers: { origin: DASHBOARD, cookie: 'session_token=nope' },
      });
      expect(res.statusCode).toBe(401);
      expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
    });

    it('open the sandbox chain’s JSON-RPC to any origin, without credentials', async () => {
      const pre = await preflight('/sandbox/rpc', ELSEWHERE, 'POST', 'content-type');
      expect(pre.statusCode).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe('*');
      const res = await t.app.inject({
        method: 'POST',
        url: '/sandbox/rpc',
        headers: { origin: ELSEWHERE },
        payload: { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
      });
      expect(res.json()).toMatchObject({ result: '0x7a69' });
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    });

    it('never send * together with credentials, on any route', async () => {
      for (const route of t.routes) {
        if (route.url.includes('*')) continue;
        const url = route.url.replace(/:[A-Za-z]+/g, 'x');
        for (const origin of [DASHBOARD, SHOP_ORIGIN, ELSEWHERE]) {
          const res = await preflight(url, origin, route.method);
          if (res.headers['access-control-allow-credentials'] === 'true') {
            expect(res.headers['access-control-allow-origin'], `${route.method} ${url}`).toBe(
              origin,
            );
          }
          if (res.headers['access-control-allow-origin'] === '*') {
            expect(res.headers['access-control-allow-credentials']).toBeUndefined();
          }
        }
      }
    });
  });
});
