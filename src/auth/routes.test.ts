import { eq } from 'drizzle-orm';
import type { Pool } from 'pg';
import { type Hex, serializeSignature } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import {
  refusalReason,
  type SetCookie,
  sessionCookie,
  challenge as signInChallenge,
  verify as signInVerify,
} from '../../test/sign-in.ts';
import { evmToTron } from '../chains/tron-address.ts';
import { accounts, sessions, users, walletChallenges } from '../db/schema.ts';
import { activateDestination } from '../destinations/destinations.ts';
import { resolveTarget } from '../destinations/target.ts';
import { digestSecret } from './credentials.ts';
import { checkPassword, hashDecoy, hashPassword } from './passwords.ts';
import { EMAIL_SESSION_MS, WALLET_IDLE_MS, WALLET_MAX_MS } from './sessions.ts';
import { CHALLENGE_TTL_MS, issueChallenge, tronMessageHash } from './siwe.ts';

/** Sign-in: wallets (SIWE, EVM and Tron), e-mail and password, and the sessions they open. */

// Hardhat's test accounts #1, #2 and #3.
const EVM_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const OTHER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
const RACE_KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
const evm = privateKeyToAccount(EVM_KEY);
const other = privateKeyToAccount(OTHER_KEY);
const tronAddress = evmToTron(evm.address);
const BASE_CHAIN_ID = 8453;
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

/**
 * A sign-in message for `tronAddress` on https://auth.payreq.test and its signature made by
 * TronWeb 6.5.1 (`tronWeb.trx.signMessageV2`, offline) with EVM_KEY: the route accepts a real
 * Tron wallet's signature, not only one our own hashing made (see siwe.test.ts).
 */
const TRON_SIWE_VECTOR = {
  address: 'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF',
  nonce: '7e1c0b9a4f3d2e5a6b8c9d0e1f2a3b4c',
  message: [
    'auth.payreq.test wants you to sign in with your Ethereum account:',
    'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF',
    '',
    'Sign in to payreq.',
    '',
    'URI: https://auth.payreq.test',
    'Version: 1',
    'Nonce: 7e1c0b9a4f3d2e5a6b8c9d0e1f2a3b4c',
    'Issued At: 2026-11-22T12:00:00.000Z',
    'Expiration Time: 2026-11-22T12:05:00.000Z',
  ].join('\n'),
  signature:
    '0xcd4552b0e48733ae750c66a4aea888793867b34c3e86f3672ae3aa6634bf0577450343aeb1851023cf18c307c8e044cb72ca58164b46d7ca6c25d630e1f922cb1c',
} as const;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { AUTH_URL: 'https://auth.payreq.test' } });
});
afterAll(() => t.close());

type Challenge = Awaited<ReturnType<typeof challenge>>;
type VerifyBody = Parameters<typeof signInVerify>[1];

const challenge = (address: string) => signInChallenge(t, address);
const verify = (body: VerifyBody) => signInVerify(t, body);

/** Tron message signing v2, with our hash (which siwe.test.ts checks against TronWeb's). */
async function tronSign(message: string, key: Hex): Promise<Hex> {
  return serializeSignature(await sign({ hash: tronMessageHash(message), privateKey: key }));
}

async function evmSignIn(account = evm) {
  const c = await challenge(account.address);
  const res = await verify({ ...c, signature: await account.signMessage({ message: c.message }) });
  expect(res.statusCode, res.body).toBe(200);
  return res;
}

function session(token: string) {
  return t.app.inject({
    method: 'GET',
    url: '/v1/auth/session',
    headers: { authorization: `Bearer ${token}` },
  });
}

function sessionWithCookie(token: string) {
  return t.app.inject({
    method: 'GET',
    url: '/v1/auth/session',
    headers: { cookie: `session_token=${token}` },
  });
}

function logout(headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: '/v1/auth/logout', headers });
}

/**
 * Runs `run` while inserts into users wait on a table lock, and lets them go once `waiting`
 * of them are queued: every transaction has done its reads by then.
 */
async function withUserInsertsHeld<T>(
  pool: Pool,
  waiting: number,
  run: () => Promise<T>,
): Promise<T> {
  const holder = await pool.connect();
  try {
    await holder.query('begin');
    // SHARE lets reads through and stops inserts.
    await holder.query('lock table users in share mode');
    const pending = run();
    pending.catch(() => {});
    for (;;) {
      const { rows } = await pool.query<{ n: number }>(
        `select count(*)::int as n from pg_locks where relation = 'users'::regclass and not granted`,
      );
      if ((rows[0]?.n ?? 0) >= waiting) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await holder.query('commit');
    return await pending;
  } finally {
    // No-op after the commit; ends the lock if something failed before it.
    await holder.query('rollback');
    holder.release();
  }
}

const at = (ms: number) => new Date(t.clock.now().getTime() + ms);

/** The cookie flags every sign-in sets; `Secure` only off localhost. */
function expectSessionCookie(cookie: SetCookie, options: { secure: boolean; expires: Date }) {
  expect(cookie.value).toMatch(/^ses_/);
  expect(cookie.attributes.has('HttpOnly')).toBe(true);
  expect(cookie.attributes.get('SameSite')).toBe('Lax');
  expect(cookie.attributes.has('Secure')).toBe(options.secure);
  expect(cookie.attributes.get('Path')).toBe('/');
  expect(cookie.attributes.get('Expires')).toBe(options.expires.toUTCString());
  // A Max-Age would take precedence over Expires in the browser.
  expect(cookie.attributes.has('Max-Age')).toBe(false);
}

const REFUSED =
  'Sign-in refused: the challenge is unknown, expired or used, or the signature does not match';

/** The one answer every refusal gets, the reason the log gives, and nothing secret logged. */
function expectRefused(
  res: Awaited<ReturnType<typeof verify>>,
  body: VerifyBody,
  reason: string,
): void {
  expect(res.statusCode, res.body).toBe(401);
  expect(res.json()).toMatchObject({ message: REFUSED, code: 'sign_in_refused' });
  expect(res.headers['set-cookie']).toBeUndefined();
  expect(refusalReason(t, body.challengeId)).toBe(reason);
  expect(t.logs.text()).not.toContain(body.signature);
  // Nor the message, whose nonce is its one unguessable line.
  expect(t.logs.text()).not.toContain(body.nonce);
}

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
    expect(lines).toContain(`Expiration Time: ${at(300_000).toISOString()}`);
    expect(c.expiresAt).toBe(at(300_000).toISOString());
  });

  it('signs in an EVM wallet with personal_sign and opens a wallet session', async () => {
    const c = await challenge(evm.address);
    const res = await verify({ ...c, signature: await evm.signMessage({ message: c.message }) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ address: evm.address, walletType: 'evm' });
    expect(body.expiresAt).toBe(at(WALLET_IDLE_MS).toISOString());
    const cookie = sessionCookie(res.headers);
    expectSessionCookie(cookie, { secure: true, expires: at(WALLET_MAX_MS) });
    expect(cookie.value).toBe(body.sessionToken);
    const me = await sessionWithCookie(cookie.value);
    expect(me.json()).toMatchObject({
      kind: 'wallet',
      walletAddress: evm.address,
      accountId: body.accountId,
    });
    // The same wallet signs in to the same account next time.
    const second = await evmSignIn();
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

  it('signs in with a signature TronWeb made for a stored challenge', async () => {
    expect(tronAddress).toBe(TRON_SIWE_VECTOR.address);
    const [row] = await t.db
      .insert(walletChallenges)
      .values({
        nonce: TRON_SIWE_VECTOR.nonce,
        address: TRON_SIWE_VECTOR.address,
        walletType: 'tron',
        message: TRON_SIWE_VECTOR.message,
        expiresAt: at(CHALLENGE_TTL_MS),
        createdAt: t.clock.now(),
      })
      .returning({ id: walletChallenges.id });
    const res = await verify({
      challengeId: row?.id ?? '',
      nonce: TRON_SIWE_VECTOR.nonce,
      message: TRON_SIWE_VECTOR.message,
      signature: TRON_SIWE_VECTOR.signature,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ address: tronAddress, walletType: 'tron' });
  });

  it.each([
    [
      'a wrong signer',
      'wrong_signer',
      async (c: Challenge) => ({
        ...c,
        signature: await other.signMessage({ message: c.message }),
      }),
    ],
    [
      'an altered message',
      'message_altered',
      async (c: Challenge) => {
        const message = c.message.replace('Sign in to payreq.', 'Sign in to payreq!');
        return { ...c, message, signature: await evm.signMessage({ message }) };
      },
    ],
    [
      'a message rewritten for another domain',
      'message_altered',
      async (c: Challenge) => {
        const message = c.message.replace('auth.payreq.test wants', 'evil.example wants');
        return { ...c, message, signature: await evm.signMessage({ message }) };
      },
    ],
    [
      'an unknown challenge',
      'unknown_challenge',
      async (c: Challenge) => ({
        ...c,
        challengeId: '00000000-0000-4000-8000-000000000000',
        signature: await evm.signMessage({ message: c.message }),
      }),
    ],
    [
      'a challenge id that is no id',
      'malformed_challenge_id',
      async (c: Challenge) => ({
        ...c,
        challengeId: 'not-a-challenge',
        signature: await evm.signMessage({ message: c.message }),
      }),
    ],
    [
      'another nonce',
      'nonce_mismatch',
      async (c: Challenge) => ({
        ...c,
        nonce: 'f'.repeat(32),
        signature: await evm.signMessage({ message: c.message }),
      }),
    ],
    [
      'a Tron signature of an EVM challenge',
      'wrong_signer',
      async (c: Challenge) => ({ ...c, signature: await tronSign(c.message, EVM_KEY) }),
    ],
  ])('refuses %s with 401 and logs %s', async (_name, reason, tamper) => {
    const body = await tamper(await challenge(evm.address));
    expectRefused(await verify(body), body, reason);
  });

  it.each([
    [
      'a wrong signer',
      'wrong_signer',
      async (c: Challenge) => ({ ...c, signature: await tronSign(c.message, OTHER_KEY) }),
    ],
    [
      'an altered message',
      'message_altered',
      async (c: Challenge) => {
        const message = c.message.replace('Sign in to payreq.', 'Sign in to payreq!');
        return { ...c, message, signature: await tronSign(message, EVM_KEY) };
      },
    ],
    [
      'an EVM personal_sign signature',
      'wrong_signer',
      async (c: Challenge) => ({ ...c, signature: await evm.signMessage({ message: c.message }) }),
    ],
  ])('refuses a Tron challenge with %s (401, logs %s)', async (_name, reason, tamper) => {
    const body = await tamper(await challenge(tronAddress));
    expectRefused(await verify(body), body, reason);
  });

  it('refuses a reused nonce', async () => {
    const c = await challenge(evm.address);
    const body = { ...c, signature: await evm.signMessage({ message: c.message }) };
    expect((await verify(body)).statusCode).toBe(200);
    expectRefused(await verify(body), body, 'already_used');
  });

  it('refuses an expired challenge', async () => {
    const c = await challenge(evm.address);
    const body = { ...c, signature: await evm.signMessage({ message: c.message }) };
    t.clock.advance(CHALLENGE_TTL_MS + 1);
    expectRefused(await verify(body), body, 'expired');
  });

  it.each([
    ['another host', 'https://other.payreq.test'],
    ['another URI on the same host', 'http://auth.payreq.test'],
  ])('refuses a challenge issued under %s on the same database', async (_name, authUrl) => {
    // What another deployment on this database (or this one before AUTH_URL changed) issued.
    const c = await issueChallenge(t.db, t.clock, authUrl, evm.address);
    const body = { ...c, signature: await evm.signMessage({ message: c.message }) };
    expectRefused(await verify(body), body, 'wrong_domain');
  });

  it('lets two simultaneous verifies of one challenge open one session', async () => {
    const racer = privateKeyToAccount(RACE_KEY);
    const c = await challenge(racer.address);
    const body = { ...c, signature: await racer.signMessage({ message: c.message }) };
    const answers = await Promise.all([verify(body), verify(body)]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 401]);
    expect(refusalReason(t, c.challengeId)).toBe('already_used');
    const [user] = await t.db.select().from(users).where(eq(users.walletAddress, racer.address));
    const rows = await t.db
      .select()
      .from(sessions)
      .where(eq(sessions.userId, user?.id ?? ''));
    expect(rows).toHaveLength(1);
  });

  it('refuses an address of neither kind', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/wallet/challenge',
      payload: { address: '0x1234' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      {
        field: 'address',
        message: 'must be an EVM address (0x followed by 40 hex digits) or a Tron address (T…)',
      },
    ]);
  });

  it('ends a wallet session after 15 idle minutes, not while it is used', async () => {
    const { sessionToken } = (await evmSignIn()).json();
    for (let i = 0; i < 3; i++) {
      t.clock.advance(14 * 60_000);
      expect((await session(sessionToken)).statusCode).toBe(200);
    }
    t.clock.advance(WALLET_IDLE_MS + 1);
    const expired = await session(sessionToken);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toMatchObject({
      message: 'Session expired; sign in again',
      code: 'session_expired',
    });
  });

  it('keeps the cookie until the 24-hour cap while in use; the server still ends 15 idle minutes', async () => {
    const signedIn = await evmSignIn();
    const hardEnd = at(WALLET_MAX_MS);
    const cookie = sessionCookie(signedIn.headers);
    expectSessionCookie(cookie, { secure: true, expires: hardEnd });
    // The body still says when the session ends if unused.
    expect(signedIn.json().expiresAt).toBe(at(WALLET_IDLE_MS).toISOString());

    // 40 minutes of use in steps under 15 with the one cookie the browser got: it is still
    // unexpired for the browser, and the server takes it.
    for (let i = 0; i < 4; i++) {
      t.clock.advance(10 * 60_000);
      expect(t.clock.now() < hardEnd).toBe(true);
      const me = await sessionWithCookie(cookie.value);
      expect(me.statusCode, me.body).toBe(200);
      expect(me.json().expiresAt).toBe(at(WALLET_IDLE_MS).toISOString());
    }

    t.clock.advance(WALLET_IDLE_MS);
    const idle = await sessionWithCookie(cookie.value);
    expect(idle.statusCode).toBe(401);
    expect(idle.json().code).toBe('session_expired');
  });
});

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
    expect(wrong.json().message).toBe('Invalid email or password');
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
