import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { BatchMetadata } from '../../payments/schemas.ts';
import { COMMERCE_REQUEST_REFUSED } from '../../requests/commerce-guard.ts';
import { BigNumberJson } from '../../requests/schemas.ts';
import { createBatchPayout } from '../batch.ts';
import { payoutCallerOf } from '../caller.ts';
import type { PayoutDeps } from '../create.ts';
import { BatchPayoutBody, PAYOUT_AUTH, PAYOUT_TAGS } from '../schemas.ts';

const Approval = Type.Object({
  data: Type.String(),
  to: Type.String(),
  value: Type.Integer({ description: 'Always 0' }),
});

const BatchPayoutResponse = Type.Object({
  ERC20ApprovalTransactions: Type.Array(Approval),
  batchPaymentTransaction: Type.Object(
    { data: Type.String(), to: Type.String(), value: BigNumberJson },
    { description: 'The one transaction that pays every request (BatchConversionPayments)' },
  ),
  ERC20BatchPaymentTransaction: Type.Optional(
    Type.Object(
      { data: Type.String(), to: Type.String(), value: BigNumberJson },
      {
        description:
          'The reference schema’s name for the batch transaction when it pays any token: the same transaction as batchPaymentTransaction; send one of them',
      },
    ),
  ),
  ETHBatchPaymentTransaction: Type.Optional(
    Type.Object(
      { data: Type.String(), to: Type.String(), value: BigNumberJson },
      {
        description:
          'The reference schema’s name for the batch transaction when it pays only the native currency: the same transaction as batchPaymentTransaction',
      },
    ),
  ),
  requestIds: Type.Array(Type.String(), {
    description: 'The requests the batch pays, in the order of the body',
  }),
  requests: Type.Array(
    Type.Object({
      requestId: Type.String(),
      paymentReference: Type.String(),
      payee: Type.Union([Type.String(), Type.Null()]),
      amount: Type.Union([Type.String(), Type.Null()], {
        description: 'What the request is for, in its invoice currency',
      }),
      invoiceCurrency: Type.Union([Type.String(), Type.Null()]),
      paymentCurrency: Type.Union([Type.String(), Type.Null()]),
    }),
    { description: 'The requests the batch pays, in the order of requestIds' },
  ),
  metadata: BatchMetadata,
});

export function registerCreateBatchPayout(app: App, deps: PayoutDeps): void {
  app.post(
    '/v2/payouts/batch',
    {
      config: { auth: PAYOUT_AUTH },
      schema: {
        tags: PAYOUT_TAGS,
        summary: 'Pay several requests in one transaction on one EVM network',
        description:
          'New requests (`requests`) or existing ones (`requestIds`), up to 200, ERC20 of several tokens and the native currency mixed. Send the approvals, then the batch transaction.',
        body: BatchPayoutBody,
        response: { 201: BatchPayoutResponse, 409: COMMERCE_REQUEST_REFUSED },
      },
    },
    async (request, reply) => {
      return reply
        .code(201)
        .send(await createBatchPayout(deps, payoutCallerOf(request), request.body));
    },
  );
}
