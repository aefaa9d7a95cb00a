import { Type } from 'typebox';
import { scopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { refundPlan } from '../actions.ts';
import type { CommerceDeps } from '../deps.ts';
import { executeAction } from '../execute.ts';
import { formatted } from '../format.ts';
import {
  COMMERCE_AUTH,
  COMMERCE_TAGS,
  CommerceParams,
  CommerceStatus,
  RefundBody,
  SignedTransaction,
} from '../schemas.ts';

const RefundExecuteBody = Type.Object(
  { ...RefundBody.properties, signedTransaction: Type.Optional(SignedTransaction) },
  { additionalProperties: false },
);

const RefundResponse = Type.Object({
  requestId: Type.String(),
  status: CommerceStatus,
  transactionHash: Type.String(),
  refundAmount: Type.String(),
});

export function registerRefund(app: App, deps: CommerceDeps): void {
  app.post(
    '/v2/commerce-payments/:requestId/refund',
    {
      config: { auth: COMMERCE_AUTH },
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'payreq’s addition: refund captured funds to the buyer, from the operator',
        description:
          'At most the refundable amount (captured, not yet refunded), before the refund expiry. The operator supplies the funds: the server’s operator approves the wrapper first when its allowance is short; an operator with its own key approves the wrapper itself and sends `signedTransaction`.',
        params: CommerceParams,
        body: RefundExecuteBody,
        response: { 200: RefundResponse },
      },
    },
    async (request) => {
      const { signedTransaction, ...body } = request.body;
      const result = await executeAction(
        deps,
        scopeOf(request),
        request.params.requestId,
        refundPlan(deps.chains, body, signedTransaction),
      );
      return {
        requestId: result.payment.requestId,
        status: result.state.status,
        transactionHash: result.transactionHash,
        refundAmount: formatted(deps.chains, result.payment, result.amount),
      };
    },
  );
}
