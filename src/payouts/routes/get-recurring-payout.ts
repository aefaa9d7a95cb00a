import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { loadRecurringPayout } from '../recurring/refusals.ts';
import { RECURRING_SUMMARY_FIELDS, RecurringParams } from '../recurring/schemas.ts';
import { recurringStatus } from '../recurring/views.ts';
import { PAYOUT_AUTH, PAYOUT_TAGS } from '../schemas.ts';

const RecurringStatusResponse = Type.Object({
  ...RECURRING_SUMMARY_FIELDS,
  requests: Type.Array(Type.Object({ paymentReference: Type.String(), requestId: Type.String() })),
  payments: Type.Array(
    Type.Object({
      id: Type.String(),
      amount: Type.String(),
      timestamp: Type.String(),
      txHash: Type.String(),
    }),
  ),
});

export function registerGetRecurringPayout(
  app: App,
  deps: { db: Database; chains: ChainRegistry; payUrl: string },
): void {
  app.get(
    '/v2/payouts/recurring/:id',
    {
      config: { auth: PAYOUT_AUTH },
      schema: {
        tags: PAYOUT_TAGS,
        summary: 'A recurring payout: where it stands, its requests and its payments',
        params: RecurringParams,
        response: { 200: RecurringStatusResponse },
      },
    },
    async (request) =>
      recurringStatus(
        deps,
        await loadRecurringPayout(deps.db, accountIdOf(request), request.params.id),
      ),
  );
}
