import type { Clock } from '../../base/clock.ts';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { AUTH_TAGS, Credentials, SessionBody } from '../schemas.ts';
import { createSignIn } from '../session-cookie.ts';
import { createPasswordLogin } from '../users.ts';

export function registerLogIn(
  app: App,
  deps: { db: Database; clock: Clock; config: Pick<Config, 'authUrl'> },
): void {
  const signIn = createSignIn(deps);
  const login = createPasswordLogin(deps);
  // A decoy hash that failed to be made fails app.ready().
  app.addHook('onReady', async () => {
    await login.ready();
  });
  app.post(
    '/v1/auth/login',
    {
      schema: {
        tags: AUTH_TAGS,
        summary: 'Sign in with e-mail and password (30-day session)',
        body: Credentials,
        response: { 200: SessionBody },
      },
    },
    async (request, reply) => {
      const user = await login.logIn(request.body);
      const session = await signIn(reply, user, 'email');
      return {
        userId: user.id,
        accountId: user.accountId,
        expiresAt: session.expiresAt.toISOString(),
        sessionToken: session.token,
      };
    },
  );
}
