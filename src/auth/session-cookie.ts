import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../base/clock.ts';
import { LOOPBACK_HOSTS } from '../base/ids.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import { SESSION_COOKIE, type SessionKind, type StartedSession, startSession } from './sessions.ts';

/**
 * Sign-in on the auth API, e-mail and password or a wallet (SIWE), sets the `session_token`
 * cookie (httpOnly, sameSite=lax, secure unless the auth API is on localhost), kept by the
 * browser until the session's hard end; the server ends idle wallet sessions.
 */

export type SignIn = (
  reply: FastifyReply,
  user: { id: string; accountId: string },
  kind: SessionKind,
) => Promise<StartedSession>;

/** Starts a session for the user and sets its cookie on the reply. */
export function createSignIn(deps: {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'authUrl'>;
}): SignIn {
  const secure = !LOOPBACK_HOSTS.has(new URL(deps.config.authUrl).hostname);
  return async (reply, user, kind) => {
    const session = await startSession(deps.db, deps.clock, {
      userId: user.id,
      accountId: user.accountId,
      kind,
    });
    reply.setCookie(SESSION_COOKIE, session.token, {
      httpOnly: true,
      secure,
      sameSite: 'lax',
      path: '/',
      // Not the idle expiry: the cookie is never set again while the session is used.
      expires: session.endsAt,
    });
    return session;
  };
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

/**
 * The session token sent the way the auth hook reads it: Bearer first, else the cookie, which
 * `fromCookie` says (the cookie is ambient, so what it may do depends on the page's origin).
 */
export function presentedSession(
  request: FastifyRequest,
): { token: string; fromCookie: boolean } | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization?.trim() ?? '')?.[1];
  if (bearer !== undefined) return { token: bearer, fromCookie: false };
  const cookie = request.cookies[SESSION_COOKIE];
  return cookie === undefined || cookie === '' ? undefined : { token: cookie, fromCookie: true };
}
