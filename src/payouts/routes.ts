import type { Clock } from '../base/clock.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { accountIdOf, browserOriginOf, clientIdOf } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import { createBatchPayout } from './batch.ts';
import { createPayout } from './create.ts';
import { payerPageRoutes } from './recurring/page-routes.ts';
import { recurringPayoutRoutes } from './recurring/routes.ts';
import { BatchPayoutBody, BatchPayoutResponse, PayoutBody, PayoutResponse } from './schemas.ts';

const AUTH = ['apiKey', 'clientId'] as const;
const TAGS = ['V2/Payouts'];

export function payoutRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    clients: ChainClients;
    payUrl: string;
  },
): void {
  const callerOf = (request: Parameters<typeof accountIdOf>[0]) => ({
    accountId: accountIdOf(request),
    clientId: clientIdOf(request),
    origin: browserOriginOf(request),
  });

  app.post(
    '/v2/payouts',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Pay someone: a request to `payee` and the calldata that pays it',
        description:
          'With a payer wallet (`payerWallet`, or `payerAddress` or `payer`), its balance and allowance are read and the approval is left out when it is not needed. With `recurrence`, a recurring payout: `id`, the approval of the recurring payment proxy for every payment (when the allowance is short), the `recurringPaymentPermit` to sign and `metadata {stepsRequired, totalNeededAllowance, currentAllowance, additionalAllowanceNeeded, existingPaymentsAmount}`.',
        body: PayoutBody,
        response: { 201: PayoutResponse },
      },
    },
    async (request, reply) => {
      const body = await createPayout(deps, callerOf(request), request.body, clientIdOf(request));
      return reply.code(201).send(body);
    },
  );

  app.post(
    '/v2/payouts/batch',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Pay several requests in one transaction on one EVM network',
        description:
          'New requests (`requests`) or existing ones (`requestIds`), up to 200, ERC20 of several tokens and the native currency mixed. Send the approvals, then the batch transaction.',
        body: BatchPayoutBody,
        response: { 201: BatchPayoutResponse },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await createBatchPayout(deps, callerOf(request), request.body));
    },
  );

  recurringPayoutRoutes(app, deps);
  payerPageRoutes(app, deps);
}
