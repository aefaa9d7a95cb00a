import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { activateWithSignature } from '../recurring/activation.ts';
import { loadRecurringPayout } from '../recurring/refusals.ts';
import { ActivateBody, ActivateResponse, RecurringParams } from '../recurring/schemas.ts';
import { PAYOUT_AUTH, PAYOUT_TAGS } from '../schemas.ts';

export function registerActivateRecurringPayout(
  app: App,
  deps: { db: Database; clock: Clock },
): void {
  app.post(
    '/v2/payouts/recurring/:id',
    {
      config: { auth: PAYOUT_AUTH },
      schema: {
        tags: PAYOUT_TAGS,
        summary: 'Activate a recurring payout with the payer’s signed permit',
        description:
          'The signature must be the payer’s EIP-712 signature over the `recurringPaymentPermit` the creation answered; it is checked before it is stored.',
        params: RecurringParams,
        body: ActivateBody,
        response: { 201: ActivateResponse },
      },
    },
    async (request, reply) => {
      const row = await loadRecurringPayout(deps.db, accountIdOf(request), request.params.id);
      const body = await activateWithSignature(deps, row, request.body.permitSignature, () =>
        loadRecurringPayout(deps.db, row.accountId, row.id),
      );
      return reply.code(201).send(body);
    },
  );
}
