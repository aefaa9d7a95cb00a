import { scopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { capturePlan } from '../actions.ts';
import type { CommerceDeps } from '../deps.ts';
import { planCalldata } from '../execute.ts';
import { operatorCall } from '../operator-call.ts';
import {
  CaptureBody,
  COMMERCE_AUTH,
  COMMERCE_TAGS,
  CommerceParams,
  OperatorCall,
} from '../schemas.ts';

export function registerCaptureCalldata(app: App, deps: CommerceDeps): void {
  app.post(
    '/v2/commerce-payments/:requestId/capture/calldata',
    {
      config: { auth: COMMERCE_AUTH },
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'The capture the operator signs',
        description: 'Checked as `/capture` checks it; nothing is sent or reserved.',
        params: CommerceParams,
        body: CaptureBody,
        response: { 200: OperatorCall },
      },
    },
    async (request) => {
      const { payment, transaction } = await planCalldata(
        deps,
        scopeOf(request),
        request.params.requestId,
        capturePlan(deps.chains, request.body, undefined),
      );
      return operatorCall(payment, transaction);
    },
  );
}
