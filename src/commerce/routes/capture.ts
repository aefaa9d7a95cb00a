import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { capturePlan } from '../actions.ts';
import type { CommerceDeps } from '../deps.ts';
import {
  CaptureBody,
  COMMERCE_AUTH,
  COMMERCE_TAGS,
  CommerceParams,
  CommerceStatus,
  SERVER_SIGNS,
  SignedTransaction,
} from '../schemas.ts';
import { executeRoute } from './execute-route.ts';

const CaptureExecuteBody = Type.Object(
  { ...CaptureBody.properties, signedTransaction: Type.Optional(SignedTransaction) },
  { additionalProperties: false },
);

const CaptureResponse = Type.Object({
  requestId: Type.String(),
  status: CommerceStatus,
  transactionHash: Type.String(),
  captureAmount: Type.String(),
});

export function registerCapture(app: App, deps: CommerceDeps): void {
  app.post(
    '/v2/commerce-payments/:requestId/capture',
    {
      config: { auth: COMMERCE_AUTH },
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'Capture held funds to the merchant, in part or in full',
        description:
          'At most the capturable amount, before the authorization expires; `feeBps` of it goes to `feeReceiver`. ' +
          SERVER_SIGNS,
        params: CommerceParams,
        body: CaptureExecuteBody,
        response: { 200: CaptureResponse },
      },
    },
    async (request) => {
      const { signedTransaction, ...body } = request.body;
      const { amount, ...answer } = await executeRoute(
        deps,
        request,
        capturePlan(deps.chains, body, signedTransaction),
      );
      return { ...answer, captureAmount: amount };
    },
  );
}
