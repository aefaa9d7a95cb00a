import { Type } from 'typebox';
import { scopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { BigNumberJson } from '../../requests/schemas.ts';
import { decimalsOf, refundPlan } from '../actions.ts';
import { approveWrapperTransaction } from '../calldata/approve-wrapper.ts';
import type { CommerceDeps } from '../deps.ts';
import { planCalldata } from '../execute.ts';
import { commerceAmount } from '../limits.ts';
import { operatorCall } from '../operator-call.ts';
import {
  COMMERCE_AUTH,
  COMMERCE_TAGS,
  CommerceParams,
  evmCallOf,
  OperatorCall,
  RefundBody,
} from '../schemas.ts';

const RefundCall = Type.Object({
  ...OperatorCall.properties,
  transactions: Type.Array(
    Type.Object({ to: Type.String(), data: Type.String(), value: BigNumberJson }),
    {
      description:
        'What the operator sends, in order: its approval of the wrapper for the amount (leave it out when the allowance already covers it), then refundPayment',
    },
  ),
});

export function registerRefundCalldata(app: App, deps: CommerceDeps): void {
  app.post(
    '/v2/commerce-payments/:requestId/refund/calldata',
    {
      config: { auth: COMMERCE_AUTH },
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'payreq’s addition: the refund the operator signs',
        description:
          'Checked as `/refund` checks it; nothing is sent or reserved. The operator supplies the refund: it approves the wrapper for the amount first.',
        params: CommerceParams,
        body: RefundBody,
        response: { 200: RefundCall },
      },
    },
    async (request) => {
      const plan = refundPlan(deps.chains, request.body, undefined);
      const { payment, transaction } = await planCalldata(
        deps,
        scopeOf(request),
        request.params.requestId,
        plan,
      );
      const amount = commerceAmount(
        'refundAmount',
        request.body.refundAmount,
        decimalsOf(deps.chains, payment),
      );
      const calls = [approveWrapperTransaction(payment, amount), transaction];
      return {
        ...operatorCall(payment, transaction),
        transactions: calls.map(evmCallOf),
      };
    },
  );
}
