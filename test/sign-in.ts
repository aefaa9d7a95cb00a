import { expect } from 'vitest';
import type { TestApp } from './app.ts';

/** Wallet sign-in through the app, as a wallet's front end drives it. */

export interface Challenge {
  readonly challengeId: string;
  readonly nonce: string;
  readonly message: string;
  readonly expiresAt: string;
}

export async function challenge(
  t: TestApp,
  address: string,
  extra: { chainId?: number } = {},
): Promise<Challenge> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/wallet/challenge',
    payload: { address, ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Challenge;
}

export function verify(
  t: TestApp,
  body: { challengeId: string; nonce: string; message: string; signature: string },
) {
  return t.app.inject({ method: 'POST', url: '/v1/auth/wallet/verify', payload: body });
}

/**
 * Why the app refused a verify of this challenge: the reason it logged, which the caller is
 * never told. Expects exactly one refusal logged for the challenge.
 */
export function refusalReason(t: TestApp, challengeId: string): unknown {
  const refusals = t.logs
    .entries()
    .filter((e) => e.msg === 'wallet sign-in refused' && e.challengeId === challengeId);
  expect(refusals, `refusals logged for ${challengeId}`).toHaveLength(1);
  return refusals[0]?.reason;
}

export interface SetCookie {
  readonly name: string;
  readonly value: string;
  /** Attribute names as sent (`HttpOnly`, `Secure`…) mapped to their value, `''` for flags. */
  readonly attributes: ReadonlyMap<string, string>;
}

/** The one `session_token` Set-Cookie of a response. */
export function sessionCookie(headers: Record<string, unknown>): SetCookie {
  const raw = headers['set-cookie'];
  const all = (Array.isArray(raw) ? raw : [raw]).filter((c): c is string => typeof c === 'string');
  const mine = all.filter((c) => c.startsWith('session_token='));
  expect(mine, 'session_token Set-Cookie headers').toHaveLength(1);
  const [pair = '', ...rest] = (mine[0] ?? '').split(';').map((part) => part.trim());
  const eq = pair.indexOf('=');
  const attributes = new Map<string, string>();
  for (const attribute of rest) {
    const at = attribute.indexOf('=');
    if (at === -1) attributes.set(attribute, '');
    else attributes.set(attribute.slice(0, at), attribute.slice(at + 1));
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes };
}
