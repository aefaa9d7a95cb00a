import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { voidPlan } from '../actions.ts';
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

const VoidBody = Type.Object(
  {
    reason: Type.Optional(Type.String({ maxLength: 500, description: 'Kept with the void' })),
    signedTransaction: Type.Optional(SignedTransaction),
  },
  { additionalProperties: false },
);

const VoidResponse = Type.Object({
  requestId: Type.String(),
  status: CommerceStatus,
  transactionHash: Type.String(),
  voidedAmount: Type.String(),
});

export function registerVoid(app: App, deps: CommerceDeps): void {
  app.post(
    '/v2/commerce-payments/:requestId/void',
    {
      config: { auth: COMMERCE_AUTH },
      preValidation: emptyBodyAsObject,
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'Void a commerce payment: every unit still held goes back to the buyer',
        description: SERVER_SIGNS,
        params: CommerceParams,
        body: VoidBody,
        response: { 200: VoidResponse },
      },
    },
    async (request) => {
      const { amount, ...answer } = await executeRoute(
        deps,
        request,
        voidPlan(request.body.reason, request.body.signedTransaction),
        (result) => result.state.voided,
      );
      return { ...answer, voidedAmount: amount };
    },
  );
}
