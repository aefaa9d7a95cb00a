import type { Pool } from 'pg';
import { type Hex, serializeSignature } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { afterAll, beforeAll, expect } from 'vitest';
import { tronMessageHash } from '../src/auth/siwe.ts';
import { evmToTron } from '../src/chains/tron-address.ts';
import { createTestApp, type TestApp } from './app.ts';
import {
  refusalReason,
  type SetCookie,
  challenge as signInChallenge,
  verify as signInVerify,
} from './sign-in.ts';

/**
 * What the tests of sign-in share (src/auth/routes-*.test.ts): the app on an HTTPS AUTH_URL,
 * test wallets, the challenge, verify, session and logout calls, and the refusal's checks.
 */

// Hardhat's test accounts #1, #2 and #3.
export const EVM_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const OTHER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
export const RACE_KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
export const evm = privateKeyToAccount(EVM_KEY);
export const other = privateKeyToAccount(OTHER_KEY);
export const tronAddress = evmToTron(evm.address);
export const BASE_CHAIN_ID = 8453;
export const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

/**
 * A sign-in message for `tronAddress` on https://auth.payreq.test and its signature made by
 * TronWeb 6.5.1 (`tronWeb.trx.signMessageV2`, offline) with EVM_KEY: the route accepts a real
 * Tron wallet's signature, not only one our own hashing made (see siwe.test.ts).
 */
export const TRON_SIWE_VECTOR = {
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

export let t: TestApp;

/** Registers the file's app, on an HTTPS AUTH_URL: each test file calls it once. */
export function setupAuthApp(): void {
  beforeAll(async () => {
    t = await createTestApp({ env: { AUTH_URL: 'https://auth.payreq.test' } });
  });
  afterAll(() => t.close());
}

export type Challenge = Awaited<ReturnType<typeof challenge>>;
export type VerifyBody = Parameters<typeof signInVerify>[1];

export const challenge = (address: string, extra: { chainId?: number } = {}) =>
  signInChallenge(t, address, extra);
export const verify = (body: VerifyBody) => signInVerify(t, body);

/** Tron message signing v2, with our hash (which siwe.test.ts checks against TronWeb's). */
export async function tronSign(message: string, key: Hex): Promise<Hex> {
  return serializeSignature(await sign({ hash: tronMessageHash(message), privateKey: key }));
}

export async function evmSignIn(account = evm) {
  const c = await challenge(account.address);
  const res = await verify({ ...c, signature: await account.signMessage({ message: c.message }) });
  expect(res.statusCode, res.body).toBe(200);
  return res;
}

export function session(token: string) {
  return t.app.inject({
    method: 'GET',
    url: '/v1/auth/session',
    headers: { authorization: `Bearer ${token}` },
  });
}

export function sessionWithCookie(token: string) {
  return t.app.inject({
    method: 'GET',
    url: '/v1/auth/session',
    headers: { cookie: `session_token=${token}` },
  });
}

export function logout(headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: '/v1/auth/logout', headers });
}

/**
 * Runs `run` while inserts into users wait on a table lock, and lets them go once `waiting`
 * of them are queued: every transaction has done its reads by then.
 */
export async function withUserInsertsHeld<T>(
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

export const at = (ms: number) => new Date(t.clock.now().getTime() + ms);

/** The cookie flags every sign-in sets; `Secure` only off localhost. */
export function expectSessionCookie(
  cookie: SetCookie,
  options: { secure: boolean; expires: Date },
) {
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
export function expectRefused(
  res: Awaited<ReturnType<typeof verify>>,
  body: VerifyBody,
  reason: string,
): void {
  expect(res.statusCode, res.body).toBe(401);
  expect(res.json()).toMatchObject({
    message: 'Unauthorized',
    code: 'sign_in_refused',
    errors: [{ field: 'credentials', message: REFUSED }],
  });
  expect(res.headers['set-cookie']).toBeUndefined();
  expect(refusalReason(t, body.challengeId)).toBe(reason);
  expect(t.logs.text()).not.toContain(body.signature);
  // Nor the message, whose nonce is its one unguessable line.
  expect(t.logs.text()).not.toContain(body.nonce);
}
