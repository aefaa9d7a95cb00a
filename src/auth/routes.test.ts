import { eq } from 'drizzle-orm';
import { type Hex, serializeSignature } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { challenge as signInChallenge, verify as signInVerify } from '../../test/sign-in.ts';
import { evmToTron } from '../chains/tron-address.ts';
import { sessions, users } from '../db/schema.ts';
import { tronMessageHash } from './siwe.ts';

/** Sign-in: wallets (SIWE, EVM and Tron), e-mail and password, and the sessions they open. */

const EVM_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const OTHER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
const evm = privateKeyToAccount(EVM_KEY);
const other = privateKeyToAccount(OTHER_KEY);
const tronAddress = evmToTron(evm.address);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { AUTH_URL: 'https://auth.payreq.test' } });
});
afterAll(() => t.close());

const challenge = (address: string) => signInChallenge(t, address);
const verify = (body: Parameters<typeof signInVerify>[1]) => signInVerify(t, body);

async function tronSign(message: string, key: Hex): Promise<Hex> {
  return serializeSignature(await sign({ hash: tronMessageHash(message), privateKey: key }));
}

function session(token: string) {
  return t.app.inject({
    method: 'GET',
    url: '/v1/auth/session',
    headers: { authorization: `Bearer ${token}` },
  });
}

const REFUSED =
  'Sign-in refused: the challenge is unknown, expired or used, or the signature does not match';

describe('wallet sign-in (SIWE)', () => {
  it('issues an EIP-4361 message bound to AUTH_URL, valid five minutes', async () => {
    const c = await challenge(evm.address.toLowerCase());
    const lines = c.message.split('\n');
    expect(lines[0]).toBe('auth.payreq.test wants you to sign in with your Ethereum account:');
    expect(lines[1]).toBe(evm.address);
    expect(lines).toContain('Sign in to payreq.');
    expect(lines).toContain('URI: https://auth.payreq.test');
    expect(lines).toContain('Version: 1');
    expect(lines).toContain('Chain ID: 1');
    expect(lines).toContain(`Nonce: ${c.nonce}`);
    expect(lines).toContain(`Issued At: ${t.clock.now().toISOString()}`);
    expect(lines).toContain(
      `Expiration Time: ${new Date(t.clock.now().getTime() + 300_000).toISOString()}`,
    );
    expect(c.expiresAt).toBe(new Date(t.clock.now().getTime() + 300_000).toISOString());
  });

  it('signs in an EVM wallet with personal_sign and opens a wallet session', async () => {
    const c = await challenge(evm.address);
    const res = await verify({ ...c, signature: await evm.signMessage({ message: c.message }) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ address: evm.address, walletType: 'evm' });
    expect(body.expiresAt).toBe(new Date(t.clock.now().getTime() + 15 * 60_000).toISOString());
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^session_token=ses_/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Secure/);
    const me = await t.app.inject({
      method: 'GET',
      url: '/v1/auth/session',
      headers: { cookie: cookie.split(';')[0] ?? '' },
    });
    expect(me.json()).toMatchObject({
      kind: 'wallet',
      walletAddress: evm.address,
      accountId: body.accountId,
    });
    // The same wallet signs in to the same account next time.
    const again = await challenge(evm.address);
    const second = await verify({
      ...again,
      signature: await evm.signMessage({ message: again.message }),
    });
    expect(second.json().accountId).toBe(body.accountId);
  });

  it('signs in a Tron wallet with message signing v2, without a Chain ID line', async () => {
    const c = await challenge(tronAddress);
    expect(c.message).not.toContain('Chain ID');
    expect(c.message.split('\n')[1]).toBe(tronAddress);
    const res = await verify({ ...c, signature: await tronSign(c.message, EVM_KEY) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ address: tronAddress, walletType: 'tron' });
  });

  it.each([
    [
      'a wrong signer',
      async (c: Awaited<ReturnType<typeof challenge>>) => ({
        ...c,
        signature: await other.signMessage({ message: c.message }),
      }),
    ],
    [
      'an altered message',
      async (c: Awaited<ReturnType<typeof challenge>>) => {
        const message = c.message.replace('Sign in to payreq.', 'Sign in to payreq!');
        return { ...c, message, signature: await evm.signMessage({ message }) };
      },
    ],
    [
      'another domain',
      async (c: Awaited<ReturnType<typeof challenge>>) => {
        const message = c.message.replace('auth.payreq.test wants', 'evil.example wants');
        return { ...c, message, signature: await evm.signMessage({ message }) };
      },
    ],
    [
      'an unknown challenge',
      async (c: Awaited<ReturnType<typeof challenge>>) => ({
        ...c,
        challengeId: '00000000-0000-4000-8000-000000000000',
        signature: await evm.signMessage({ message: c.message }),
      }),
    ],
    [
      'another nonce',
      async (c: Awaited<ReturnType<typeof challenge>>) => ({
        ...c,
        nonce: 'f'.repeat(32),
        signature: await evm.signMessage({ message: c.message }),
      }),
    ],
    [
      'a Tron signature of an EVM challenge',
      async (c: Awaited<ReturnType<typeof challenge>>) => ({
        ...c,
        signature: await tronSign(c.message, EVM_KEY),
      }),
    ],
  ])('refuses %s with 401', async (_name, tamper) => {
    const c = await challenge(evm.address);
    const res = await verify(await tamper(c));
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ message: REFUSED, code: 'sign_in_refused' });
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a reused nonce', async () => {
    const c = await challenge(evm.address);
    const body = { ...c, signature: await evm.signMessage({ message: c.message }) };
    expect((await verify(body)).statusCode).toBe(200);
    expect((await verify(body)).statusCode).toBe(401);
  });

  it('refuses an expired challenge', async () => {
    const c = await challenge(evm.address);
    const body = { ...c, signature: await evm.signMessage({ message: c.message }) };
    t.clock.advance(5 * 60_000 + 1);
    const res = await verify(body);
    expect(res.statusCode).toBe(401);
  });

  it('refuses an address of neither kind', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/wallet/challenge',
      payload: { address: '0x1234' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'address', message: 'must be an EVM address (0x…) or a Tron address (T…)' },
    ]);
  });

  it('ends a wallet session after 15 idle minutes, not while it is used', async () => {
    const c = await challenge(evm.address);
    const { sessionToken } = (
      await verify({ ...c, signature: await evm.signMessage({ message: c.message }) })
    ).json();
    for (let i = 0; i < 3; i++) {
      t.clock.advance(14 * 60_000);
      expect((await session(sessionToken)).statusCode).toBe(200);
    }
    t.clock.advance(15 * 60_000 + 1);
    const expired = await session(sessionToken);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toMatchObject({
      message: 'Session expired; sign in again',
      code: 'session_expired',
    });
  });
});

describe('e-mail and password', () => {
  const password = 'correct horse battery';

  it('registers with a normalised e-mail, signs in, and ends the session on logout', async () => {
    const registered = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: '  Ada@Example.COM ', password },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    expect(registered.json().email).toBe('ada@example.com');
    const taken = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: 'ada@example.com', password },
    });
    expect(taken.statusCode).toBe(409);

    const login = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: 'ADA@example.com', password },
    });
    expect(login.statusCode).toBe(200);
    const token = login.json().sessionToken;
    expect(login.json().expiresAt).toBe(
      new Date(t.clock.now().getTime() + 30 * 24 * 60 * 60_000).toISOString(),
    );
    expect((await session(token)).json()).toMatchObject({
      kind: 'email',
      email: 'ada@example.com',
    });

    const logout = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/logout',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(logout.statusCode).toBe(200);
    expect(String(logout.headers['set-cookie'])).toMatch(/session_token=;/);
    expect((await session(token)).statusCode).toBe(401);
  });

  it('answers an unknown e-mail and a wrong password the same way', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: 'bob@example.com', password },
    });
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: 'bob@example.com', password: 'not the password' },
    });
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: 'nobody@example.com', password },
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.body).toBe(unknown.body);
    expect(wrong.json().message).toBe('Invalid email or password');
  });

  it('wants a password of 8 to 100 characters and a real e-mail', async () => {
    for (const [email, pw] of [
      ['c@example.com', 'x'.repeat(7)],
      ['c@example.com', 'x'.repeat(101)],
      ['not-an-email', password],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/register',
        payload: { email, password: pw },
      });
      expect(res.statusCode).toBe(400);
    }
    const ok = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: 'c@example.com', password: 'x'.repeat(100) },
    });
    expect(ok.statusCode).toBe(201);
  });

  it('keeps an e-mail session 30 days', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: 'dee@example.com', password },
    });
    const token = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: 'dee@example.com', password },
      })
    ).json().sessionToken;
    t.clock.advance(29 * 24 * 60 * 60_000);
    expect((await session(token)).statusCode).toBe(200);
    t.clock.advance(24 * 60 * 60_000 + 1);
    expect((await session(token)).statusCode).toBe(401);
  });

  it('never stores or logs a password or a session token in clear', async () => {
    const secretPassword = 'Tr0ub4dor&3-unique-pw';
    const registered = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: 'eve@example.com', password: secretPassword },
    });
    const token = registered.json().sessionToken;
    await session(token);
    const [user] = await t.db.select().from(users).where(eq(users.email, 'eve@example.com'));
    expect(user?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(user?.passwordHash).not.toContain(secretPassword);
    const rows = await t.db
      .select()
      .from(sessions)
      .where(eq(sessions.userId, user?.id ?? ''));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(t.logs.text()).not.toContain(secretPassword);
    expect(t.logs.text()).not.toContain(token);
  });

  it('is accepted on the request API as a Bearer token or the cookie', async () => {
    const registered = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: 'fay@example.com', password },
    });
    const token = registered.json().sessionToken;
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

  it('refuses a bad or missing session with 401', async () => {
    expect((await session('ses_nope')).statusCode).toBe(401);
    const missing = await t.app.inject({ method: 'GET', url: '/v1/auth/session' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().code).toBe('missing_credentials');
  });
});
