import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import { AppError } from '../../base/errors.ts';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import {
  CROSS_SITE_COOKIE_MESSAGE,
  cookieWriteAllowed,
  cookieWriteOrigins,
} from '../../http/cookie-writes.ts';
import { requestOrigin } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { AUTH_TAGS } from '../schemas.ts';
import { clearSessionCookie, presentedSession } from '../session-cookie.ts';
import { endSession } from '../sessions.ts';

// Public, not `auth: ['session']`: the auth hook would answer 401 to an expired or unknown
// session and leave its cookie in the browser. As a public /v1/auth/* route it is rate
// limited per IP (src/http/rate-limit.ts).
export function registerLogOut(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    config: Pick<Config, 'dashboardUrl' | 'authUrl' | 'baseUrl'>;
  },
): void {
  const trusted = cookieWriteOrigins(deps.config);
  app.post(
    '/v1/auth/logout',
    {
      schema: {
        tags: AUTH_TAGS,
        summary: 'End the session and clear its cookie',
        description:
          'Takes the session_token cookie or Authorization: Bearer. Answers success and clears the cookie whatever the session: live, expired, ended, unknown or absent. The cookie ends a session only from the dashboard’s pages (403 origin_not_allowed from another origin).',
        response: { 200: Type.Object({ success: Type.Literal(true) }) },
      },
    },
    async (request, reply) => {
      const presented = presentedSession(request);
      if (
        presented?.fromCookie === true &&
        !cookieWriteAllowed(request.method, requestOrigin(request), trusted, request)
      ) {
        throw new AppError('origin_not_allowed', CROSS_SITE_COOKIE_MESSAGE);
      }
      if (presented !== undefined) await endSession(deps.db, deps.clock, presented.token);
      clearSessionCookie(reply);
      return { success: true as const };
    },
  );
}
