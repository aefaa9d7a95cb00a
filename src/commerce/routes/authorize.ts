import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { authorizePlan } from '../actions.ts';
import { checkPreApproved } from '../consent.ts';
import type { CommerceDeps } from '../deps.ts';
import {
  COMMERCE_AUTH,
  COMMERCE_TAGS,
  CommerceParams,
  CommerceStatus,
  emptyBodyAsObject,
  SERVER_SIGNS,
  SignedTransaction,
} from '../schemas.ts';
import { executeRoute } from './execute-route.ts';

const AuthorizeBody = Type.Object(
  { signedTransaction: Type.Optional(SignedTransaction) },
  { additionalProperties: false },
);

const AuthorizeResponse = Type.Object({
  requestId: Type.String(),
  status: CommerceStatus,
  transactionHash: Type.String(),
  amount: Type.String(),
});

export function registerAuthorize(app: App, deps: CommerceDeps): void {
  app.post(
    '/v2/commerce-payments/:requestId/authorize',
    {
      config: { auth: COMMERCE_AUTH },
      preValidation: emptyBodyAsObject,
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'Authorize a commerce payment as its operator: the escrow takes the buyer’s funds',
        description:
          'Sends `authorizePayment` as the operator. The wrapper takes it only on terms the buyer pre-approved: the buyer must first have sent the transactions of `/authorize/calldata` (the approval of the wrapper for the amount, then `preApproveAuthorization`); without them, 409 `commerce_not_preapproved` and nothing is sent. ' +
          SERVER_SIGNS,
        params: CommerceParams,
        body: AuthorizeBody,
        response: { 200: AuthorizeResponse },
      },
    },
    async (request) =>
      executeRoute(
        deps,
        request,
        authorizePlan(request.body.signedTransaction, (payment) => checkPreApproved(deps, payment)),
      ),
  );
}
