import { and, eq, isNull } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { sessions, users } from '../db/schema.ts';
import { digestSecret, mintSecret } from './credentials.ts';

/**
 * Sessions. The token lives in the user's `session_token` cookie (or an Authorization: Bearer
 * header); we keep only its digest. Wallet sessions end after 15 idle minutes (and within a
 * day in any case); e-mail sessions last 30 days.
 */

export const SESSION_COOKIE = 'session_token';
const SESSION_PREFIX = 'ses_';
export const WALLET_IDLE_MS = 15 * 60_000;
export const WALLET_MAX_MS = 24 * 60 * 60_000;
export const EMAIL_SESSION_MS = 30 * 24 * 60 * 60_000;
/** Longer than any token we mint: anything longer is not looked up. */
const MAX_TOKEN_LENGTH = 100;
/** `lastSeenAt` is written at most this often per session. */
const TOUCH_EVERY_MS = 60_000;

export type SessionKind = 'wallet' | 'email';
type SessionRow = typeof sessions.$inferSelect;

export interface StartedSession {
  readonly token: string;
  /** When the session ends if unused: 15 minutes on for a wallet, the hard end for e-mail. */
  readonly expiresAt: Date;
  /**
   * The hard end, whatever the activity: the cookie's expiry. The cookie is set once, at
   * sign-in, so an idle expiry there would make a browser drop a session still in use; the
   * server enforces the idle timeout on every request instead.
   */
  readonly endsAt: Date;
}

export async function startSession(
  db: Database,
  clock: Clock,
  input: { userId: string; accountId: string; kind: SessionKind },
): Promise<StartedSession> {
  const now = clock.now();
  const token = mintSecret(SESSION_PREFIX);
  const expiresAt = new Date(
    now.getTime() + (input.kind === 'wallet' ? WALLET_MAX_MS : EMAIL_SESSION_MS),
  );
  await db.insert(sessions).values({
    tokenHash: digestSecret(token),
    userId: input.userId,
    accountId: input.accountId,
    kind: input.kind,
    createdAt: now,
    lastSeenAt: now,
    expiresAt,
  });
  return {
    token,
    expiresAt: expiresOf({ kind: input.kind, lastSeenAt: now, expiresAt }),
    endsAt: expiresAt,
  };
}

/** When the session ends if nothing else happens. */
export function expiresOf(row: Pick<SessionRow, 'kind' | 'lastSeenAt' | 'expiresAt'>): Date {
  if (row.kind === 'email') return row.expiresAt;
  const idle = new Date(row.lastSeenAt.getTime() + WALLET_IDLE_MS);
  return idle < row.expiresAt ? idle : row.expiresAt;
}

export type SessionCheck =
  | { readonly status: 'valid'; readonly session: SessionRow }
  | { readonly status: 'unknown' }
  | { readonly status: 'expired' };

/** A live session for the token, its idle clock moved on. */
export async function checkSession(
  db: Database,
  clock: Clock,
  token: string,
): Promise<SessionCheck> {
  if (!wellFormed(token)) return { status: 'unknown' };
  const [row] = await db
    .select()
    .from(sessions)
    .where(eq(sessions.tokenHash, digestSecret(token)));
  if (!row || row.endedAt !== null) return { status: 'unknown' };
  const now = clock.now();
  if (now >= expiresOf(row)) return { status: 'expired' };
  if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, row.id));
    return { status: 'valid', session: { ...row, lastSeenAt: now } };
  }
  return { status: 'valid', session: row };
}

/** A session and its user, by session id; `invalid_session` when there is no such session. */
export async function sessionWithUser(
  db: Database,
  sessionId: string,
): Promise<{ session: SessionRow; user: typeof users.$inferSelect }> {
  const [row] = await db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, sessionId));
  if (!row) throw new AppError('invalid_session', 'Invalid session');
  return row;
}

/** Ends the token's session, expired or not; a token of no session changes nothing. */
export async function endSession(db: Database, clock: Clock, token: string): Promise<void> {
  if (!wellFormed(token)) return;
  await db
    .update(sessions)
    .set({ endedAt: clock.now() })
    .where(and(eq(sessions.tokenHash, digestSecret(token)), isNull(sessions.endedAt)));
}

function wellFormed(token: string): boolean {
  return token.startsWith(SESSION_PREFIX) && token.length <= MAX_TOKEN_LENGTH;
}
