import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { ChainClients } from '../../chains/clients.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { changeRecurringPayout } from '../recurring/changes.ts';
import { Approval, RecurringParams } from '../recurring/schemas.ts';
import { PAYOUT_AUTH, PAYOUT_TAGS } from '../schemas.ts';

const PatchBody = Type.Object(
  {
    action: Type.String({
      minLength: 1,
      maxLength: 64,
      description: '`cancel` or `unpause`; anything else answers 400 `Invalid action: <value>`',
    }),
  },
  { additionalProperties: false },
);

const PatchResponse = Type.Union([
  Type.Object({
    id: Type.String(),
    status: Type.Literal('cancelled'),
    transactions: Type.Array(Approval, {
      description:
        'The approval that lowers the proxy’s allowance to what the payer’s other schedules of this token may still pull; empty when the allowance is already no more than that',
    }),
    metadata: Type.Object({
      remainingPayments: Type.Integer(),
      remainingAmount: Type.String(),
      processedPayments: Type.Integer(),
      totalPayments: Type.Integer(),
    }),
  }),
  Type.Object({
    id: Type.String(),
    status: Type.Literal('active'),
    metadata: Type.Object({
      processedPayments: Type.Integer(),
      totalPayments: Type.Integer(),
      nextPaymentDate: Type.Union([Type.String(), Type.Null()]),
    }),
  }),
]);

export function registerUpdateRecurringPayout(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry; clients: ChainClients },
): void {
  app.patch(
    '/v2/payouts/recurring/:id',
    {
      config: { auth: PAYOUT_AUTH },
      schema: {
        tags: PAYOUT_TAGS,
        summary: 'Cancel a recurring payout, or unpause one a failed payment paused',
        description:
          '`cancel` answers the approval that lowers the proxy’s allowance to what the payer’s other schedules of the token still need (none when it is already no more than that). `unpause` makes the schedule due again: payments whose dates passed meanwhile are made at once, in order.',
        params: RecurringParams,
        body: PatchBody,
        response: { 200: PatchResponse },
      },
    },
    async (request) =>
      changeRecurringPayout(deps, accountIdOf(request), request.params.id, request.body.action),
  );
}
