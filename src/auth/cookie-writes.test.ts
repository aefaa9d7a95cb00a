import { describe, expect, it } from 'vitest';
import {
  evmSignIn,
  logout,
  session,
  sessionWithCookie,
  setupAuthApp,
  t,
} from '../../test/auth-routes.ts';

/**
 * The session cookie is ambient: another site's page could post with it. What changes
 * something on the cookie alone must come from one of our origins (the dashboard's, the APIs');
 * a Bearer token, a read, or a call without Origin (a script) is unaffected.
 */

setupAuthApp();

const EVIL = 'https://evil.example';
const dashboard = () => new URL(t.config.dashboardUrl).origin;

async function signedIn(): Promise<string> {
  return (await evmSignIn()).json().sessionToken as string;
}

function createKey(headers: Record<string, string>) {
  return t.app.inject({ method: 'POST', url: '/v1/api-keys', headers, payload: { label: 'K' } });
}

describe('writes on the session cookie', () => {
  it('refuse to end a session from another site’s page, and end it from the dashboard’s', async () => {
    const token = await signedIn();
    const refused = await logout({ cookie: `session_token=${token}`, origin: EVIL });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      code: 'origin_not_allowed',
      message:
        'The session cookie works only from the dashboard’s pages; elsewhere send Authorization: Bearer',
    });
    expect((await sessionWithCookie(token)).statusCode).toBe(200);

    const ended = await logout({ cookie: `session_token=${token}`, origin: dashboard() });
    expect(ended.statusCode).toBe(200);
    expect((await session(token)).statusCode).toBe(401);
  });

  it('refuse an account change from another site’s page; Bearer, reads and scripts go on', async () => {
    const token = await signedIn();
    const cookie = `session_token=${token}`;
    const refused = await createKey({ cookie, origin: EVIL });
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().code).toBe('origin_not_allowed');

    expect((await createKey({ cookie, origin: dashboard() })).statusCode).toBe(201);
    expect((await createKey({ cookie })).statusCode).toBe(201);
    expect((await createKey({ authorization: `Bearer ${token}`, origin: EVIL })).statusCode).toBe(
      201,
    );
    const read = await t.app.inject({
      method: 'GET',
      url: '/v1/api-keys',
      headers: { cookie, origin: EVIL },
    });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toHaveLength(3);
  });

  it('take a page of the origin the request went to, under whatever name, and no other', async () => {
    const token = await signedIn();
    const cookie = `session_token=${token}`;
    // The dashboard opened at 127.0.0.1 while DASHBOARD_URL names another host.
    const own = await createKey({
      cookie,
      host: '127.0.0.1:8080',
      origin: 'http://127.0.0.1:8080',
    });
    expect(own.statusCode, own.body).toBe(201);
    const otherPort = await createKey({
      cookie,
      host: '127.0.0.1:8080',
      origin: 'http://127.0.0.1:9999',
    });
    expect(otherPort.statusCode).toBe(403);
    const otherScheme = await createKey({
      cookie,
      host: '127.0.0.1:8080',
      origin: 'https://127.0.0.1:8080',
    });
    expect(otherScheme.statusCode).toBe(403);
  });
});
