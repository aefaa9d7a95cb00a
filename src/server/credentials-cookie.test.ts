import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';

/**
 * The session cookie on the routes that answer anonymous callers (`GET /v2/currencies`, its
 * conversion routes, their /v1 twins). A browser sends the cookie by itself to every page of the
 * dashboard's site, which is BASE_URL's by default, so the cookie must not turn a lookup that
 * needs no credential into a 401 or 403; a credential sent in a header still must.
 */

const CURRENCY = '/v2/currencies?id=USDC-base';
const ROUTES = '/v2/currencies/EUR/conversion-routes?network=matic';
const URLS = [CURRENCY, ROUTES, CURRENCY.replace('/v2/', '/v1/'), ROUTES.replace('/v2/', '/v1/')];

let t: TestApp;
let tenant: Tenant;
let token: string;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db);
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    payload: { email: 'cookie@example.com', password: 'a long enough password' },
  });
  expect(res.statusCode, res.body).toBe(201);
  token = res.json().sessionToken;
});
afterAll(() => t.close());

function get(url: string, headers: Record<string, string>) {
  return t.app.inject({ method: 'GET', url, headers });
}

describe('the session cookie on a route that answers anonymous callers', () => {
  it('answers a valid or an unknown cookie as it answers no credential at all', async () => {
    for (const url of URLS) {
      const anonymous = await get(url, {});
      expect(anonymous.statusCode, url).toBe(200);
      for (const cookie of [token, `${token.slice(0, -4)}AAAA`, 'not-a-session']) {
        const res = await get(url, { cookie: `session_token=${cookie}` });
        expect(res.statusCode, `${url} ${res.body}`).toBe(200);
        expect(res.body).toBe(anonymous.body);
        // Read as public, as anonymous answers are: any page may read it, no credentials.
        expect(res.headers['access-control-allow-origin']).toBe(
          anonymous.headers['access-control-allow-origin'],
        );
      }
    }
  });

  it('still checks the credentials sent in headers next to the cookie', async () => {
    const cookie = `session_token=${token}`;
    const withKey = await get(CURRENCY, { cookie, 'x-api-key': tenant.apiKey });
    expect(withKey.statusCode).toBe(200);
    const badKey = await get(CURRENCY, { cookie, 'x-api-key': 'nope' });
    expect(badKey.statusCode).toBe(401);
    expect(badKey.json()).toMatchObject({ code: 'invalid_api_key' });
    const badClientId = await get(CURRENCY, { cookie, 'x-client-id': 'nope' });
    expect(badClientId.statusCode).toBe(401);
    expect(badClientId.json()).toMatchObject({ code: 'invalid_client_id' });
  });

  it('refuses a session sent as Authorization: Bearer, which the caller meant to send', async () => {
    const valid = await get(CURRENCY, { authorization: `Bearer ${token}` });
    expect(valid.statusCode).toBe(403);
    expect(valid.json()).toMatchObject({ code: 'credential_not_accepted' });
    const unknown = await get(CURRENCY, { authorization: 'Bearer not-a-session' });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toMatchObject({ code: 'invalid_session' });
    // The header is what counts, cookie or not.
    const both = await get(CURRENCY, {
      authorization: 'Bearer not-a-session',
      cookie: `session_token=${token}`,
    });
    expect(both.statusCode).toBe(401);
  });

  it('answers an expired session cookie as anonymous, and the same session as a Bearer 401', async () => {
    t.clock.advance(31 * 24 * 60 * 60_000); // past an e-mail session's 30 days
    const res = await get(CURRENCY, { cookie: `session_token=${token}` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: 'USDC-base' });
    const bearer = await get(CURRENCY, { authorization: `Bearer ${token}` });
    expect(bearer.statusCode).toBe(401);
    expect(bearer.json()).toMatchObject({ code: 'session_expired' });
    // A route that takes sessions still refuses the expired cookie.
    const guarded = await get('/v1/api-keys', { cookie: `session_token=${token}` });
    expect(guarded.statusCode).toBe(401);
    expect(guarded.json()).toMatchObject({ code: 'session_expired' });
  });
});
