import { ApiError, call } from './api.ts';
import type { DashboardConfig } from './config.ts';

/** Who is signed in (`GET /v1/auth/session`). */
export interface Session {
  readonly userId: string;
  readonly accountId: string;
  readonly kind: 'wallet' | 'email';
  readonly email: string | null;
  readonly walletAddress: string | null;
  readonly expiresAt: string;
}

/** The session the cookie carries, or null when there is none (absent, ended, idle too long). */
export async function currentSession(config: DashboardConfig): Promise<Session | null> {
  try {
    return await call<Session>(config.authBase, '/v1/auth/session');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

const COOKIE_REFUSED = 'Signed in, but the session did not stick: allow cookies for this site';

export type EmailMode = 'log-in' | 'register';

/** Signs in with e-mail and password (or creates the account first); the cookie is the session. */
export async function signInWithEmail(
  config: DashboardConfig,
  mode: EmailMode,
  credentials: { readonly email: string; readonly password: string },
): Promise<Session> {
  const path = mode === 'register' ? '/v1/auth/register' : '/v1/auth/login';
  // The answer repeats the session's token for Bearer clients; the dashboard keeps only the
  // cookie, so it reads who signed in from the session route instead.
  await call<unknown>(config.authBase, path, { method: 'POST', body: credentials });
  return signedInSession(config);
}

/**
 * The session a sign-in just made: read from the session route, as the dashboard keeps no
 * token of its own; refused when the browser kept no cookie.
 */
export async function signedInSession(config: DashboardConfig): Promise<Session> {
  const session = await currentSession(config);
  if (session === null) throw new ApiError(401, COOKIE_REFUSED, undefined);
  return session;
}

interface Challenge {
  readonly challengeId: string;
  readonly nonce: string;
  readonly message: string;
}

/**
 * The auth API's two steps of a wallet sign-in, EVM or Tron: the message for an address (an
 * EVM one names `chainId`), and the signed message checked, which sets the session cookie.
 */
export function walletAuth(config: DashboardConfig) {
  return {
    challenge: (address: string, chainId: number | undefined) =>
      call<Challenge>(config.authBase, '/v1/auth/wallet/challenge', {
        method: 'POST',
        body: { address, ...(chainId !== undefined && { chainId }) },
      }),
    verify: async ({ challengeId, nonce, message }: Challenge, signature: string) => {
      await call<unknown>(config.authBase, '/v1/auth/wallet/verify', {
        method: 'POST',
        body: { challengeId, nonce, message, signature },
      });
    },
  };
}

export async function signOut(config: DashboardConfig): Promise<void> {
  await call<unknown>(config.authBase, '/v1/auth/logout', { method: 'POST' });
}
