import { scopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { voidPlan } from '../actions.ts';
import type { CommerceDeps } from '../deps.ts';
import { planCalldata } from '../execute.ts';
import { operatorCall } from '../operator-call.ts';
import { COMMERCE_AUTH, COMMERCE_TAGS, CommerceParams, OperatorCall } from '../schemas.ts';

export function registerVoidCalldata(app: App, deps: CommerceDeps): void {
  app.post(
    '/v2/commerce-payments/:requestId/void/calldata',
    {
      config: { auth: COMMERCE_AUTH },
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'The void the operator signs',
        description: 'Checked as `/void` checks it; nothing is sent or reserved.',
        params: CommerceParams,
        response: { 200: OperatorCall },
      },
    },
    async (request) => {
      const { payment, transaction } = await planCalldata(
        deps,
        scopeOf(request),
        request.params.requestId,
        voidPlan(undefined, undefined),
      );
      return operatorCall(payment, transaction);
    },
  );
}
