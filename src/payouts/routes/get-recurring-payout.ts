import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { loadRecurringPayout } from '../recurring/refusals.ts';
import { RecurringParams, Status } from '../recurring/schemas.ts';
import { recurringStatus } from '../recurring/views.ts';
import { PAYOUT_AUTH, PAYOUT_TAGS } from '../schemas.ts';

const RecurringStatusResponse = Type.Object({
  id: Type.String(),
  status: Status,
  processedPayments: Type.Integer(),
  totalPayments: Type.Integer(),
  frequency: Type.String(),
  startDate: Type.String(),
  amount: Type.String({ description: 'Each payment, fee excluded' }),
  currency: Type.String(),
  network: Type.String(),
  payer: Type.String(),
  payee: Type.String(),
  lastPaymentDate: Type.Union([Type.String(), Type.Null()]),
  nextPaymentDate: Type.Union([Type.String(), Type.Null()], {
    description: 'Null unless the schedule is pending or active',
  }),
  failureCount: Type.Integer(),
  failureReason: Type.Union([Type.String(), Type.Null()]),
  requests: Type.Array(Type.Object({ paymentReference: Type.String(), requestId: Type.String() })),
  payments: Type.Array(
    Type.Object({
      id: Type.String(),
      amount: Type.String(),
      timestamp: Type.String(),
      txHash: Type.String(),
    }),
  ),
  createdAt: Type.String(),
  payUrl: Type.String({
    description:
      'The hosted page where the payer approves and signs (payreq’s addition); its token is the payer’s capability',
  }),
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
