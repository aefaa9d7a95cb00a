import { Type } from 'typebox';
import type { ChainClients } from '../../chains/clients.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { payerApproval } from '../recurring/approval.ts';
import { loadByPayToken } from '../recurring/refusals.ts';
import { Approval, PAY_TOKEN_AUTH, PayTokenParams } from '../recurring/schemas.ts';
import { PAYOUT_TAGS } from '../schemas.ts';

const PayerApprovalQuery = Type.Object(
  {
    wallet: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'The connected wallet: anything but the schedule’s payer is refused (403)',
      }),
    ),
  },
  { additionalProperties: false },
);

const PayerApprovalResponse = Type.Object({
  transactions: Type.Array(Approval, {
    description:
      'The approvals that let the proxy pull every payment still to come (none when the allowance is enough)',
  }),
  metadata: Type.Object({
    stepsRequired: Type.Integer(),
    totalNeededAllowance: Type.String(),
    currentAllowance: Type.String(),
    additionalAllowanceNeeded: Type.String(),
    existingPaymentsAmount: Type.String(),
  }),
});

export function registerGetPayerApproval(
  app: App,
  deps: { db: Database; chains: ChainRegistry; clients: ChainClients },
): void {
  app.get(
    '/v2/payouts/recurring/token/:token/approval',
    {
      config: { auth: PAY_TOKEN_AUTH, payPage: true },
      schema: {
        tags: PAYOUT_TAGS,
        summary: 'The approval of the recurring payment proxy the payer still needs',
        description:
          'The payer’s allowance is read from the chain now: the answer leaves the approval out once it is enough for every payment still to come (and the payer’s other schedules of the token).',
        params: PayTokenParams,
        querystring: PayerApprovalQuery,
        response: {
          200: PayerApprovalResponse,
          403: { description: 'Another wallet than the payer', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request) => {
      const row = await loadByPayToken(deps.db, linkScopeOf(request), request.params.token);
      return payerApproval(deps, row, request.query.wallet);
    },
  );
}
