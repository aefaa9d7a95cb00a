import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import {
  at,
  BASE_CHAIN_ID,
  BASE_USDC,
  challenge,
  evm,
  evmSignIn,
  expectSessionCookie,
  logout,
  other,
  session,
  sessionWithCookie,
  setupAuthApp,
  t,
  verify,
  withUserInsertsHeld,
} from '../../test/auth-routes.ts';
import {
  sessionCookie,
  challenge as signInChallenge,
  verify as signInVerify,
} from '../../test/sign-in.ts';
import { accounts, sessions, users } from '../db/schema.ts';
import { activateDestination } from '../destinations/destinations.ts';
import { resolveTarget } from '../destinations/target.ts';
import { digestSecret } from './credentials.ts';
import { checkPassword, hashDecoy, hashPassword } from './passwords.ts';
import { EMAIL_SESSION_MS, WALLET_IDLE_MS, WALLET_MAX_MS } from './sessions.ts';

/**
 * E-mail and password sign-in, logout, and the session cookie on a localhost AUTH_URL, through
 * the real app (test/auth-routes.ts).
 */

setupAuthApp();

describe('e-mail and password', () => {
  const password = 'correct horse battery';

  function register(email: string, pw = password) {
    return t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email, password: pw },
    });
  }

  function login(email: string, pw = password) {
    return t.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email, password: pw },
    });
  }

  it('registers with a normalised e-mail, signs in, and ends the session on logout', async () => {
    const registered = await register('  Ada@Example.COM ');
    expect(registered.statusCode, registered.body).toBe(201);
    expect(registered.json().email).toBe('ada@example.com');
    expectSessionCookie(sessionCookie(registered.headers), {
      secure: true,
      expires: at(EMAIL_SESSION_MS),
    });
    const taken = await register('ada@example.com');
    expect(taken.statusCode).toBe(409);

    const signedIn = await login('ADA@example.com');
    expect(signedIn.statusCode).toBe(200);
    const token = signedIn.json().sessionToken;
    expect(signedIn.json().expiresAt).toBe(at(EMAIL_SESSION_MS).toISOString());
    const cookie = sessionCookie(signedIn.headers);
    expectSessionCookie(cookie, { secure: true, expires: at(EMAIL_SESSION_MS) });
    expect(cookie.value).toBe(token);
    expect((await session(token)).json()).toMatchObject({
      kind: 'email',
      email: 'ada@example.com',
    });

    const out = await logout({ authorization: `Bearer ${token}` });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ success: true });
    const cleared = sessionCookie(out.headers);
    expect(cleared.value).toBe('');
    expect(new Date(cleared.attributes.get('Expires') ?? '') < t.clock.now()).toBe(true);
    const [row] = await t.db
      .select()
      .from(sessions)
      .where(eq(sessions.tokenHash, digestSecret(token)));
    expect(row?.endedAt).toEqual(t.clock.now());
    const after = await session(token);
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('invalid_session');
  });

  it('answers two simultaneous registrations of one e-mail with 201 and 409', async () => {
    const both = () => Promise.all([register('gil@example.com'), register(' GIL@example.com')]);
    // PGlite runs one transaction at a time; on Postgres both must get past the look-up for
    // the e-mail before either inserts, the race that made the unique index answer 500.
    const engine = t.database.engine;
    const answers =
      engine.kind === 'postgres' ? await withUserInsertsHeld(engine.pool, 2, both) : await both();
    expect(answers.map((res) => res.statusCode).sort()).toEqual([201, 409]);
    const refused = answers.find((res) => res.statusCode === 409);
    expect(refused?.json()).toMatchObject({
      code: 'email_taken',
      message: 'An account with this e-mail already exists',
    });
    expect(await t.db.select().from(users).where(eq(users.email, 'gil@example.com'))).toHaveLength(
      1,
    );
    // The refused registration's account was rolled back with it.
    expect(
      await t.db.select().from(accounts).where(eq(accounts.name, 'gil@example.com')),
    ).toHaveLength(1);
  });

  it('answers an unknown e-mail and a wrong password the same way', async () => {
    await register('bob@example.com');
    const wrong = await login('bob@example.com', 'not the password');
    const unknown = await login('nobody@example.com');
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.body).toBe(unknown.body);
    expect(wrong.json()).toMatchObject({
      message: 'Unauthorized',
      code: 'login_refused',
      errors: [{ field: 'credentials', message: 'Invalid email or password' }],
    });
  });

  it('checks an unknown e-mail against a decoy made with the same argon2id profile', async () => {
    const [decoy, real] = await Promise.all([hashDecoy(), hashPassword(password)]);
    // `$argon2id$v=19$m=…,t=…,p=…$`: the same cost for both paths.
    const profile = (phc: string) => phc.split('$').slice(0, 4).join('$');
    expect(profile(decoy)).toBe('$argon2id$v=19$m=19456,t=2,p=1');
    expect(profile(decoy)).toBe(profile(real));
    expect(await checkPassword('decoy password that never matches', null, decoy)).toBe(false);
    expect(await checkPassword(password, real, decoy)).toBe(true);
    expect(await checkPassword('not the password', real, decoy)).toBe(false);
  });

  it('wants a password of 8 to 100 characters and a real e-mail', async () => {
    for (const [email, pw] of [
      ['c@example.com', 'x'.repeat(7)],
      ['c@example.com', 'x'.repeat(101)],
      ['not-an-email', password],
    ] as const) {
      expect((await register(email, pw)).statusCode).toBe(400);
    }
    expect((await register('c@example.com', 'x'.repeat(100))).statusCode).toBe(201);
  });

  it('keeps an e-mail session 30 days', async () => {
    await register('dee@example.com');
    const token = (await login('dee@example.com')).json().sessionToken;
    t.clock.advance(29 * 24 * 60 * 60_000);
    expect((await session(token)).statusCode).toBe(200);
    t.clock.advance(24 * 60 * 60_000 + 1);
    expect((await session(token)).statusCode).toBe(401);
  });

  it('never stores or logs a password, a session token or a wallet signature in clear', async () => {
    const from = t.logs.lines.length;
    const secretPassword = 'Tr0ub4dor&3-unique-pw';
    const wrongPassword = 'Tr0ub4dor&3-wrong-pw';
    const registered = await register('eve@example.com', secretPassword);
    expect(registered.statusCode, registered.body).toBe(201);
    const signedIn = await login('eve@example.com', secretPassword);
    expect(signedIn.statusCode).toBe(200);
    expect((await login('eve@example.com', wrongPassword)).statusCode).toBe(401);

    const c = await challenge(evm.address);
    const signature = await evm.signMessage({ message: c.message });
    const refusedSignature = await other.signMessage({ message: c.message });
    expect((await verify({ ...c, signature: refusedSignature })).statusCode).toBe(401);
    const wallet = await verify({ ...c, signature });
    expect(wallet.statusCode, wallet.body).toBe(200);

    const emailTokens = [registered.json().sessionToken, signedIn.json().sessionToken];
    const walletToken: string = wallet.json().sessionToken;
    expect((await sessionWithCookie(signedIn.json().sessionToken)).statusCode).toBe(200);
    expect((await session(walletToken)).statusCode).toBe(200);
    expect(
      (await logout({ cookie: `session_token=${registered.json().sessionToken}` })).json(),
    ).toEqual({ success: true });

    const logged = t.logs.lines.slice(from);
    expect(logged.length).toBeGreaterThan(10);
    const text = t.logs.text();
    for (const secret of [
      secretPassword,
      wrongPassword,
      ...emailTokens,
      walletToken,
      signature,
      refusedSignature,
    ]) {
      expect(text).not.toContain(secret);
    }

    const [user] = await t.db.select().from(users).where(eq(users.email, 'eve@example.com'));
    expect(user?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(user?.passwordHash).not.toContain(secretPassword);
    const [walletUser] = await t.db
      .select()
      .from(users)
      .where(eq(users.walletAddress, evm.address));
    for (const [userId, tokens] of [
      [user?.id, emailTokens],
      [walletUser?.id, [walletToken]],
    ] as const) {
      const rows = await t.db
        .select()
        .from(sessions)
        .where(eq(sessions.userId, userId ?? ''));
      for (const token of tokens) {
        expect(JSON.stringify(rows)).not.toContain(token);
        // The row is there, under the token's digest only.
        expect(rows.map((r) => r.tokenHash)).toContain(digestSecret(token));
      }
      for (const row of rows) expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('is accepted on the request API as a Bearer token or the cookie', async () => {
    const token = (await register('fay@example.com')).json().sessionToken;
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: { authorization: `Bearer ${token}` },
      payload: {
        amount: '1',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        payee: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const listed = await t.app.inject({
      method: 'GET',
      url: '/v2/request',
      headers: { cookie: `session_token=${token}` },
    });
    expect(listed.json().requests.map((r: { requestId: string }) => r.requestId)).toEqual([
      created.json().requestId,
    ]);
  });

  it('creates and reads a secure payment link with the Bearer token or the cookie', async () => {
    const { accountId, sessionToken } = (await register('hal@example.com')).json();
    const destination = await activateDestination(
      t.db,
      t.clock,
      accountId,
      resolveTarget(t.chains, {
        walletAddress: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
        chainId: BASE_CHAIN_ID,
        tokenAddress: BASE_USDC,
      }),
    );
    const bearer = { authorization: `Bearer ${sessionToken}` };
    const cookie = { cookie: `session_token=${sessionToken}` };
    const tokens: string[] = [];
    for (const headers of [bearer, cookie]) {
      const created = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments',
        headers,
        payload: { requests: [{ destinationId: destination.destinationId, amount: '10' }] },
      });
      expect(created.statusCode, created.body).toBe(201);
      tokens.push(created.json().token);
    }
    // Each link read back with each way of sending the session.
    for (const token of tokens) {
      for (const headers of [bearer, cookie]) {
        const shown = await t.app.inject({
          method: 'GET',
          url: `/v2/secure-payments/${token}`,
          headers,
        });
        expect(shown.statusCode, shown.body).toBe(200);
        expect(shown.json()).toMatchObject({ token, status: 'pending' });
      }
    }
  });

  it('refuses a bad or missing session with 401', async () => {
    expect((await session('ses_nope')).statusCode).toBe(401);
    const missing = await t.app.inject({ method: 'GET', url: '/v1/auth/session' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().code).toBe('missing_credentials');
  });
});

describe('logout', () => {
  function expectCleared(res: Awaited<ReturnType<typeof logout>>) {
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true });
    const cleared = sessionCookie(res.headers);
    expect(cleared.value).toBe('');
    expect(cleared.attributes.get('Path')).toBe('/');
    expect(new Date(cleared.attributes.get('Expires') ?? '') < t.clock.now()).toBe(true);
  }

  it('ends an expired session and clears its cookie instead of answering 401', async () => {
    const { sessionToken } = (await evmSignIn()).json();
    t.clock.advance(WALLET_IDLE_MS + 1);
    expect((await sessionWithCookie(sessionToken)).json().code).toBe('session_expired');
    expectCleared(await logout({ cookie: `session_token=${sessionToken}` }));
    const [row] = await t.db
      .select()
      .from(sessions)
      .where(eq(sessions.tokenHash, digestSecret(sessionToken)));
    expect(row?.endedAt).toEqual(t.clock.now());
    expect((await session(sessionToken)).json().code).toBe('invalid_session');
  });

  it('answers success and clears the cookie for an unknown, ended or missing session', async () => {
    const { sessionToken } = (await evmSignIn()).json();
    expectCleared(await logout({ authorization: `Bearer ${sessionToken}` }));
    const [ended] = await t.db
      .select({ endedAt: sessions.endedAt })
      .from(sessions)
      .where(eq(sessions.tokenHash, digestSecret(sessionToken)));
    // Logging out again leaves the first end as it was.
    t.clock.advance(1_000);
    expectCleared(await logout({ cookie: `session_token=${sessionToken}` }));
    const [again] = await t.db
      .select({ endedAt: sessions.endedAt })
      .from(sessions)
      .where(eq(sessions.tokenHash, digestSecret(sessionToken)));
    expect(again?.endedAt).toEqual(ended?.endedAt);

    expectCleared(await logout({ cookie: 'session_token=ses_unknown' }));
    expectCleared(await logout({ authorization: 'Bearer not-a-session' }));
    expectCleared(await logout());
  });
});

describe('cookies on a localhost AUTH_URL', () => {
  let local: TestApp;
  beforeAll(async () => {
    local = await createTestApp({ env: { AUTH_URL: 'http://localhost:8080' } });
  });
  afterAll(() => local.close());

  it('are HttpOnly and SameSite=Lax without Secure, from register, login and wallet verify', async () => {
    const now = () => local.clock.now().getTime();
    const payload = { email: 'ida@example.com', password: 'correct horse battery' };
    const registered = await local.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload,
    });
    expect(registered.statusCode, registered.body).toBe(201);
    expectSessionCookie(sessionCookie(registered.headers), {
      secure: false,
      expires: new Date(now() + EMAIL_SESSION_MS),
    });

    const signedIn = await local.app.inject({ method: 'POST', url: '/v1/auth/login', payload });
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expectSessionCookie(sessionCookie(signedIn.headers), {
      secure: false,
      expires: new Date(now() + EMAIL_SESSION_MS),
    });

    const c = await signInChallenge(local, evm.address);
    expect(c.message.split('\n')[0]).toBe(
      'localhost:8080 wants you to sign in with your Ethereum account:',
    );
    const wallet = await signInVerify(local, {
      ...c,
      signature: await evm.signMessage({ message: c.message }),
    });
    expect(wallet.statusCode, wallet.body).toBe(200);
    expectSessionCookie(sessionCookie(wallet.headers), {
      secure: false,
      expires: new Date(now() + WALLET_MAX_MS),
    });
  });
});
