import { Type } from 'typebox';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { buyerView, findByPayToken, recordBuyerAuthorization } from '../buyer.ts';
import type { CommerceDeps } from '../deps.ts';
import { COMMERCE_TAGS, PAY_TOKEN_AUTH, PayTokenParams } from '../schemas.ts';
import { loadState } from '../store.ts';

const BuyerAuthorizationBody = Type.Object(
  { txHash: Type.String({ maxLength: 100, description: 'The mined authorizePayment' }) },
  { additionalProperties: false },
);

const BuyerAuthorizationResponse = Type.Object({
  requestId: Type.String(),
  status: Type.String({ description: 'Where the payment stands now: AUTHORIZED once held' }),
});

export function registerPostBuyerAuthorization(app: App, deps: CommerceDeps): void {
  app.post(
    '/v2/commerce-payments/token/:payToken/authorization',
    {
      config: { auth: PAY_TOKEN_AUTH, payPage: true },
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'Tell the service the buyer’s wallet authorized a commerce payment',
        description:
          'payreq’s addition, for the hosted page: the receipt must hold the wrapper’s PaymentAuthorized of this payment. The payment counts as held at once, as detection would count it when it reads the block; the buyer is recorded when the payment named none. The same hash again changes nothing.',
        params: PayTokenParams,
        body: BuyerAuthorizationBody,
        response: { 200: BuyerAuthorizationResponse },
      },
    },
    async (request) => {
      const scope = linkScopeOf(request);
      const payment = await findByPayToken(deps.db, scope, request.params.payToken);
      await recordBuyerAuthorization(deps, payment, request.body.txHash);
      const again = await findByPayToken(deps.db, scope, request.params.payToken);
      const view = buyerView(
        deps,
        await loadState(deps.db, again, await deps.chainTime.now(again.network)),
      );
      return { requestId: view.requestId, status: view.status };
    },
  );
}
