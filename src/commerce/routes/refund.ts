import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { refundPlan } from '../actions.ts';
import type { CommerceDeps } from '../deps.ts';
import {
  COMMERCE_AUTH,
  COMMERCE_TAGS,
  CommerceParams,
  CommerceStatus,
  RefundBody,
  SignedTransaction,
} from '../schemas.ts';
import { executeRoute } from './execute-route.ts';

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
          'At most the refundable amount (captured, not yet refunded), before the refund expiry. The operator supplies the funds, so the operator signs: it approves the wrapper itself and sends `signedTransaction` (`/refund/calldata`). The server never pays a refund with its shared `COMMERCE_OPERATOR_KEY` (409 `commerce_refund_unfunded`); only the sandbox’s development operator refunds unsigned, approving the wrapper first when short, and only for an API key: with a client ID alone, 403 `commerce_client_id_cannot_sign`.',
        params: CommerceParams,
        body: RefundExecuteBody,
        response: { 200: RefundResponse },
      },
    },
    async (request) => {
      const { signedTransaction, ...body } = request.body;
      const { amount, ...answer } = await executeRoute(
        deps,
        request,
        refundPlan(deps.chains, body, signedTransaction),
      );
      return { ...answer, refundAmount: amount };
    },
  );
}
