import { Type } from 'typebox';
import { clientIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { BigNumberJson } from '../../requests/schemas.ts';
import { payoutCallerOf } from '../caller.ts';
import { createPayout, type PayoutDeps } from '../create.ts';
import { RecurringPaymentPermit } from '../recurring/schemas.ts';
import { PAYOUT_AUTH, PAYOUT_TAGS, PayoutBody } from '../schemas.ts';

const EvmCall = Type.Object(
  { data: Type.String(), to: Type.String(), value: BigNumberJson },
  { additionalProperties: true, description: 'Tron calls add their trigger parameters' },
);

const PayoutResponse = Type.Object({
  id: Type.Optional(
    Type.String({
      description: 'With `recurrence`: the recurring payout, for `/v2/payouts/recurring/{id}`',
    }),
  ),
  requestId: Type.String({
    description: 'The request of the payment (with `recurrence`: of its first payment)',
  }),
  paymentReference: Type.String(),
  transactions: Type.Array(EvmCall),
  recurringPaymentPermit: Type.Optional(RecurringPaymentPermit),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  payUrl: Type.Optional(
    Type.String({
      description:
        'With `recurrence` (payreq’s addition): the hosted page where the payer approves the proxy and signs the permit with their wallet, `PAY_URL/?recurring=<token>`. The token is the payer’s capability: send the URL to the payer only.',
    }),
  ),
});

export function registerCreatePayout(app: App, deps: PayoutDeps): void {
  app.post(
    '/v2/payouts',
    {
      config: { auth: PAYOUT_AUTH },
      schema: {
        tags: PAYOUT_TAGS,
        summary: 'Pay someone: a request to `payee` and the calldata that pays it',
        description:
          'With a payer wallet (`payerWallet`, or `payerAddress` or `payer`), its balance and allowance are read and the approval is left out when it is not needed. With `recurrence`, a recurring payout: `id`, the approval of the recurring payment proxy for every payment (when the allowance is short), the `recurringPaymentPermit` to sign and `metadata {stepsRequired, totalNeededAllowance, currentAllowance, additionalAllowanceNeeded, existingPaymentsAmount}`.',
        body: PayoutBody,
        response: { 201: PayoutResponse },
      },
    },
    async (request, reply) => {
      const body = await createPayout(
        deps,
        payoutCallerOf(request),
        request.body,
        clientIdOf(request),
      );
      return reply.code(201).send(body);
    },
  );
}
