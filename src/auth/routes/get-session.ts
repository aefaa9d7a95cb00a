import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { AUTH_TAGS } from '../schemas.ts';
import { expiresOf, sessionWithUser } from '../sessions.ts';

const Response = Type.Object({
  userId: Type.String(),
  accountId: Type.String(),
  kind: Type.Union([Type.Literal('wallet'), Type.Literal('email')]),
  email: Type.Union([Type.String(), Type.Null()]),
  walletAddress: Type.Union([Type.String(), Type.Null()]),
  expiresAt: Type.String({ format: 'date-time' }),
});

export function registerGetSession(app: App, deps: { db: Database }): void {
  app.get(
    '/v1/auth/session',
    {
      config: { auth: ['session'] },
      schema: {
        tags: AUTH_TAGS,
        summary: 'Who this session is, and when it ends if unused',
        response: { 200: Response },
      },
    },
    async (request) => {
      const principal = request.principal;
      if (principal?.kind !== 'session') throw new Error('route needs a session');
      const { session, user } = await sessionWithUser(deps.db, principal.sessionId);
      return {
        userId: user.id,
        accountId: user.accountId,
        kind: session.kind,
        email: user.email,
        walletAddress: user.walletAddress,
        expiresAt: expiresOf(session).toISOString(),
      };
    },
  );
}
