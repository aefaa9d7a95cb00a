import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { AUTH_TAGS, Credentials, SessionBody } from '../schemas.ts';
import { createSignIn } from '../session-cookie.ts';
import { registerEmailUser } from '../users.ts';

const Response = Type.Object({ ...SessionBody.properties, email: Type.String() });

export function registerSignUp(
  app: App,
  deps: { db: Database; clock: Clock; config: Pick<Config, 'authUrl'> },
): void {
  const signIn = createSignIn(deps);
  app.post(
    '/v1/auth/register',
    {
      schema: {
        tags: AUTH_TAGS,
        summary: 'Create an account with e-mail and password, and sign in',
        body: Credentials,
        response: { 201: Response },
      },
    },
    async (request, reply) => {
      const user = await registerEmailUser(deps.db, request.body);
      const session = await signIn(reply, user, 'email');
      return reply.code(201).send({
        userId: user.id,
        accountId: user.accountId,
        email: user.email,
        expiresAt: session.expiresAt.toISOString(),
        sessionToken: session.token,
      });
    },
  );
}
