import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { LINK_TAGS, TokenParams } from '../../secure-payments/schemas.ts';
import { multicallView } from '../multicall/view.ts';

export function registerGetMulticallPayout(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry },
): void {
  app.get(
    '/v2/secure-payments/multicall-payouts/:token',
    {
      // Server-side credentials (the reference takes a session only).
      config: { auth: ['apiKey', 'session'] },
      schema: {
        tags: LINK_TAGS,
        summary:
          'A multicall payout: each child with whether it can be paid now (blockReason), and the totals',
        params: TokenParams,
        response: { 200: Type.Ref('MulticallView') },
      },
    },
    async (request) => multicallView(deps, linkScopeOf(request), request.params.token),
  );
}
