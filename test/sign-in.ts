import { expect } from 'vitest';
import type { TestApp } from './app.ts';

/** Wallet sign-in through the app, as a wallet's front end drives it. */

export interface Challenge {
  readonly challengeId: string;
  readonly nonce: string;
  readonly message: string;
  readonly expiresAt: string;
}

export async function challenge(t: TestApp, address: string): Promise<Challenge> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/wallet/challenge',
    payload: { address },
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
