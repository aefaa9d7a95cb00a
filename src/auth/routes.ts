import { eq } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Hex } from 'viem';
import type { Clock } from '../base/clock.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import { LOOPBACK_HOSTS } from '../base/ids.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import { accounts, sessions, users } from '../db/schema.ts';
import type { App } from '../http/types.ts';
import {
  checkPassword,
  hashDecoy,
  hashPassword,
  normaliseEmail,
  PASSWORD_MAX,
  PASSWORD_MIN,
} from './passwords.ts';
import {
  endSession,
  expiresOf,
  SESSION_COOKIE,
  type SessionKind,
  type StartedSession,
  startSession,
} from './sessions.ts';
import { issueChallenge, SignInRefusedError, verifyChallenge } from './siwe.ts';

const TAGS = ['V1/Authentication'];
export const LOGIN_REFUSED = 'Invalid email or password';

const Credentials = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
  },
  { additionalProperties: false },
);

const SessionBody = Type.Object({
  userId: Type.String(),
  accountId: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
  /** The session token again, for clients that send `Authorization: Bearer` instead of the cookie. */
  sessionToken: Type.String(),
});

/**
 * Sign-in on the auth API: e-mail and password, or a wallet (SIWE). Both set the
 * `session_token` cookie (httpOnly, sameSite=lax, secure unless the auth API is on localhost),
 * kept by the browser until the session's hard end; the server ends idle wallet sessions.
 */
export function authRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    config: Pick<Config, 'authUrl' | 'networks'>;
    clients: ChainClients;
  },
): void {
  const secureCookie = !LOOPBACK_HOSTS.has(new URL(deps.config.authUrl).hostname);
  // Hashed while the app starts, so the first unknown e-mail costs what a wrong password does.
  const decoy = hashDecoy();
  // Marked handled now; a failure still fails app.ready() through the hook.
  decoy.catch(() => {});
  app.addHook('onReady', async () => {
    await decoy;
  });

  const signIn = async (
    reply: FastifyReply,
    user: { id: string; accountId: string },
    kind: SessionKind,
  ): Promise<StartedSession> => {
    const session = await startSession(deps.db, deps.clock, {
      userId: user.id,
      accountId: user.accountId,
      kind,
    });
    reply.setCookie(SESSION_COOKIE, session.token, {
      httpOnly: true,
      secure: secureCookie,
      sameSite: 'lax',
      path: '/',
      // Not the idle expiry: the cookie is never set again while the session is used.
      expires: session.endsAt,
    });
    return session;
  };

  app.post(
    '/v1/auth/register',
    {
      schema: {
        tags: TAGS,
        summary: 'Create an account with e-mail and password, and sign in',
        body: Credentials,
        response: { 201: Type.Object({ ...SessionBody.properties, email: Type.String() }) },
      },
    },
    async (request, reply) => {
      const email = normaliseEmail(request.body.email);
      if (email === null)
        throw new ValidationError([{ field: 'email', message: 'must be an e-mail address' }]);
      const passwordHash = await hashPassword(request.body.password);
      const taken = () => new AppError('email_taken', 'An account with this e-mail already exists');
      const user = await deps.db.transaction(async (tx) => {
        const [existing] = await tx
          .select({ id: users.id })
          .from(users)
          .where(eq(users.email, email));
        if (existing) throw taken();
        const [account] = await tx
          .insert(accounts)
          .values({ name: email })
          .returning({ id: accounts.id });
        if (!account) throw new Error('account insert returned no row');
        const [row] = await tx
          .insert(users)
          .values({ accountId: account.id, email, passwordHash })
          .onConflictDoNothing({ target: users.email })
          .returning({ id: users.id, accountId: users.accountId });
        // A concurrent registration of the same e-mail committed first (after our select);
        // throwing rolls back the account made above.
        if (!row) throw taken();
        return row;
      });
      const session = await signIn(reply, user, 'email');
      return reply.code(201).send({
        userId: user.id,
        accountId: user.accountId,
        email,
        expiresAt: session.expiresAt.toISOString(),
        sessionToken: session.token,
      });
    },
  );

  app.post(
    '/v1/auth/login',
    {
      schema: {
        tags: TAGS,
        summary: 'Sign in with e-mail and password (30-day session)',
        body: Credentials,
        response: { 200: SessionBody },
      },
    },
    async (request, reply) => {
      const email = normaliseEmail(request.body.email);
      const [user] =
        email === null ? [] : await deps.db.select().from(users).where(eq(users.email, email));
      // Same work and the same answer whether the e-mail is unknown or the password wrong.
      const ok = await checkPassword(
        request.body.password,
        user?.passwordHash ?? null,
        await decoy,
      );
      if (!ok || !user) throw new AppError('login_refused', LOGIN_REFUSED);
      const session = await signIn(reply, user, 'email');
      return {
        userId: user.id,
        accountId: user.accountId,
        expiresAt: session.expiresAt.toISOString(),
        sessionToken: session.token,
      };
    },
  );

  // Public, not `auth: ['session']`: the auth hook would answer 401 to an expired or unknown
  // session and leave its cookie in the browser. As a public /v1/auth/* route it is rate
  // limited per IP (src/http/rate-limit.ts).
  app.post(
    '/v1/auth/logout',
    {
      schema: {
        tags: TAGS,
        summary: 'End the session and clear its cookie',
        description:
          'Takes the session_token cookie or Authorization: Bearer. Answers success and clears the cookie whatever the session: live, expired, ended, unknown or absent.',
        response: { 200: Type.Object({ success: Type.Literal(true) }) },
      },
    },
    async (request, reply) => {
      const token = presentedSession(request);
      if (token !== undefined) await endSession(deps.db, deps.clock, token);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return { success: true as const };
    },
  );

  app.get(
    '/v1/auth/session',
    {
      config: { auth: ['session'] },
      schema: {
        tags: TAGS,
        summary: 'Who this session is, and when it ends if unused',
        response: {
          200: Type.Object({
            userId: Type.String(),
            accountId: Type.String(),
            kind: Type.Union([Type.Literal('wallet'), Type.Literal('email')]),
            email: Type.Union([Type.String(), Type.Null()]),
            walletAddress: Type.Union([Type.String(), Type.Null()]),
            expiresAt: Type.String({ format: 'date-time' }),
          }),
        },
      },
    },
    async (request) => {
      const principal = request.principal;
      if (principal?.kind !== 'session') throw new Error('route needs a session');
      const [row] = await deps.db
        .select({ session: sessions, user: users })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(eq(sessions.id, principal.sessionId));
      if (!row) throw new AppError('invalid_session', 'Invalid session');
      return {
        userId: row.user.id,
        accountId: row.user.accountId,
        kind: row.session.kind,
        email: row.user.email,
        walletAddress: row.user.walletAddress,
        expiresAt: expiresOf(row.session).toISOString(),
      };
    },
  );

  app.post(
    '/v1/auth/wallet/challenge',
    {
      schema: {
        tags: TAGS,
        summary: 'A Sign-In with Ethereum message for an EVM or Tron address (5-minute expiry)',
        body: Type.Object(
          { address: Type.String({ minLength: 1, maxLength: 64 }) },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            challengeId: Type.String(),
            nonce: Type.String(),
            message: Type.String(),
            expiresAt: Type.String({ format: 'date-time' }),
          }),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await issueChallenge(deps.db, deps.clock, deps.config.authUrl, request.body.address)),
  );

  app.post(
    '/v1/auth/wallet/verify',
    {
      schema: {
        tags: TAGS,
        summary: 'Sign in with the signed challenge (wallet sessions end after 15 idle minutes)',
        body: Type.Object(
          {
            challengeId: Type.String({ minLength: 1, maxLength: 64 }),
            nonce: Type.String({ minLength: 1, maxLength: 64 }),
            message: Type.String({ minLength: 1, maxLength: 2_000 }),
            signature: Type.String({ pattern: '^0x[0-9a-fA-F]+$', maxLength: 20_000 }),
            /** Echoed back from the challenge by clients that send it whole; not used. */
            expiresAt: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            address: Type.String(),
            walletType: Type.Union([Type.Literal('evm'), Type.Literal('tron')]),
            userId: Type.String(),
            accountId: Type.String(),
            expiresAt: Type.String({ format: 'date-time' }),
            sessionToken: Type.String(),
          }),
        },
      },
    },
    async (request, reply) => {
      const mainnet = deps.clients.configured('mainnet') ? deps.clients.evm('mainnet') : null;
      const { challengeId, nonce, message, signature } = request.body;
      const wallet = await verifyChallenge(deps.db, deps.clock, {
        authUrl: deps.config.authUrl,
        challengeId,
        nonce,
        message,
        signature: signature as Hex,
        mainnet,
      }).catch((error: unknown) => {
        // The caller gets one answer for every refusal; the log says which check it was
        // (never the signature or the message, which the challenge id leads to anyway).
        if (error instanceof SignInRefusedError) {
          request.log.info({ challengeId, reason: error.reason }, 'wallet sign-in refused');
        }
        throw error;
      });
      const user = await walletUser(deps.db, wallet);
      const session = await signIn(reply, user, 'wallet');
      return {
        address: wallet.address,
        walletType: wallet.walletType,
        userId: user.id,
        accountId: user.accountId,
        expiresAt: session.expiresAt.toISOString(),
        sessionToken: session.token,
      };
    },
  );
}

/** The session token sent the way the auth hook reads it: Bearer first, else the cookie. */
function presentedSession(request: FastifyRequest): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization?.trim() ?? '')?.[1];
  const cookie = request.cookies[SESSION_COOKIE];
  return bearer ?? (cookie === undefined || cookie === '' ? undefined : cookie);
}

/** The wallet's user, created with its own account on its first sign-in. */
async function walletUser(
  db: Database,
  wallet: { address: string; walletType: 'evm' | 'tron' },
): Promise<{ id: string; accountId: string }> {
  return db.transaction(async (tx) => {
    const [existing] = await tx.select().from(users).where(eq(users.walletAddress, wallet.address));
    if (existing) return existing;
    const [account] = await tx
      .insert(accounts)
      .values({ name: wallet.address })
      .returning({ id: accounts.id });
    if (!account) throw new Error('account insert returned no row');
    const [user] = await tx
      .insert(users)
      .values({
        accountId: account.id,
        walletAddress: wallet.address,
        walletType: wallet.walletType,
      })
      .onConflictDoNothing({ target: users.walletAddress })
      .returning();
    if (user) return user;
    // Signed in twice at once: the other sign-in created the user.
    const [raced] = await tx.select().from(users).where(eq(users.walletAddress, wallet.address));
    if (!raced) throw new Error('wallet user vanished');
    return raced;
  });
}
