import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import { AppError } from '../../base/errors.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { listLinks } from '../list.ts';
import { TokenParams } from '../schemas.ts';

/**
 * Ours, for the dashboard's link page: one of the account's links as `GET /v2/secure-payments`
 * lists it, whatever its status (the pay page's `GET /v2/secure-payments/{token}` answers a
 * paid link 409 and an expired one 403, as a payer must be told).
 */
export function registerGetLinkItem(
  app: App,
  deps: { db: Database; clock: Clock; payUrl: string },
): void {
  app.get(
    '/v2/dashboard/links/:token',
    {
      config: { auth: ['apiKey', 'session'] },
      schema: {
        tags: ['V2/Dashboard'],
        summary: 'Ours: one of the account’s links as the list shows it, whatever its status',
        params: TokenParams,
        response: { 200: Type.Record(Type.String(), Type.Unknown()) },
      },
    },
    async (request) => {
      const { securePayments } = await listLinks(
        deps.db,
        deps.clock,
        deps.payUrl,
        accountIdOf(request),
        { token: request.params.token, limit: 1 },
      );
      const [link] = securePayments;
      if (!link) throw new AppError('secure_payment_not_found', 'Secure payment not found');
      return link;
    },
  );
}
