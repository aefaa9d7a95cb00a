import { eq } from 'drizzle-orm';
import { privateKeyToAccount } from 'viem/accounts';
import { parseSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import {
  at,
  type Challenge,
  challenge,
  EVM_KEY,
  evm,
  evmSignIn,
  expectRefused,
  expectSessionCookie,
  OTHER_KEY,
  other,
  RACE_KEY,
  session,
  sessionWithCookie,
  setupAuthApp,
  TRON_SIWE_VECTOR,
  t,
  tronAddress,
  tronSign,
  verify,
} from '../../test/auth-routes.ts';
import { refusalReason, sessionCookie } from '../../test/sign-in.ts';
import { sessions, users, walletChallenges } from '../db/schema.ts';
import { WALLET_IDLE_MS, WALLET_MAX_MS } from './sessions.ts';
import { CHALLENGE_TTL_MS, issueChallenge, MAX_CHAIN_ID } from './siwe.ts';

/**
 * Wallet sign-in (SIWE, EVM and Tron) through the real app (test/auth-routes.ts): the
 * challenge, the signature checks, every refusal answered alike, and the session it opens.
 */

setupAuthApp();

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

  it('names the wallet’s chain in the message when the client sends chainId, and signs in with it', async () => {
    const c = await challenge(evm.address, { chainId: 8453 });
    const lines = c.message.split('\n');
    expect(lines).toContain('Chain ID: 8453');
    expect(lines).not.toContain('Chain ID: 1');
    // A standard EIP-4361 message, as a wallet's SIWE parser reads it.
    expect(parseSiweMessage(c.message)).toMatchObject({
      address: evm.address,
      chainId: 8453,
      domain: 'auth.payreq.test',
      nonce: c.nonce,
    });
    const res = await verify({ ...c, signature: await evm.signMessage({ message: c.message }) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ address: evm.address, walletType: 'evm' });
    // The largest chain ID a wallet can be on is taken too.
    const largest = await challenge(evm.address, { chainId: MAX_CHAIN_ID });
    expect(largest.message).toContain(`Chain ID: ${MAX_CHAIN_ID}\n`);
  });

  it.each([
    ['zero', 0],
    ['a negative number', -1],
    ['a fraction', 8453.5],
    ['text', '8453'],
    ['past the largest chain ID', MAX_CHAIN_ID + 1],
  ])('refuses a chainId that is %s, writing no challenge', async (_name, chainId) => {
    const before = await t.db.$count(walletChallenges);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/wallet/challenge',
      payload: { address: evm.address, chainId },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['chainId']);
    expect(await t.db.$count(walletChallenges)).toBe(before);
  });

  it('signs in a Tron wallet with message signing v2, without a Chain ID line', async () => {
    // Tron's message signing has no chain: a chainId sent along changes nothing.
    const c = await challenge(tronAddress, { chainId: 728126428 });
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
      message: 'Unauthorized',
      code: 'session_expired',
      errors: [{ field: 'session', message: 'Session expired; sign in again' }],
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
