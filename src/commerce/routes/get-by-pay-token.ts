import { Type } from 'typebox';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { buyerView, findByPayToken } from '../buyer.ts';
import type { CommerceDeps } from '../deps.ts';
import { COMMERCE_TAGS, CommerceStatus, PAY_TOKEN_AUTH, PayTokenParams } from '../schemas.ts';
import { loadState } from '../store.ts';

const BuyerViewResponse = Type.Object({
  requestId: Type.String(),
  status: CommerceStatus,
  network: Type.String(),
  chainId: Type.Integer(),
  currency: Type.String(),
  token: Type.String({ description: 'The token’s address' }),
  decimals: Type.Integer(),
  amount: Type.String({ description: 'What the authorization holds, in the token’s units' }),
  maxAmount: Type.String(),
  heldAmount: Type.String({ description: 'Held in the escrow now' }),
  capturedAmount: Type.String(),
  refundedAmount: Type.String(),
  canReclaim: Type.Boolean({
    description:
      'The buyer may take back what is held (`heldAmount`, by `/reclaim`): something is held and the chain’s clock has passed `authorizationExpiry`, whatever `status` says (a partly captured hold stays `PAID`)',
  }),
  merchant: Type.String({ description: 'Who captures the payment' }),
  merchantId: Type.String(),
  buyer: Type.Union([Type.String(), Type.Null()], {
    description: 'The only wallet that may authorize; null: whichever wallet authorizes first',
  }),
  preApprovalExpiry: Type.String({ description: 'The authorization must be sent before it' }),
  authorizationExpiry: Type.String({
    description: 'Held until then at most: the merchant captures or releases it before',
  }),
  refundExpiry: Type.String(),
});

export function registerGetByPayToken(app: App, deps: CommerceDeps): void {
  app.get(
    '/v2/commerce-payments/token/:payToken',
    {
      config: { auth: PAY_TOKEN_AUTH, payPage: true },
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'A commerce payment as its buyer sees it, by its pay token',
        description:
          'payreq’s addition: what the hosted page (`payUrl`) shows the buyer: the amount held and until when, the merchant, and where the payment stands. The pay token is the buyer’s capability: the pay page’s client ID reads any account’s, an API key its own account’s.',
        params: PayTokenParams,
        response: { 200: BuyerViewResponse },
      },
    },
    async (request) => {
      const payment = await findByPayToken(deps.db, linkScopeOf(request), request.params.payToken);
      return buyerView(
        deps,
        await loadState(deps.db, payment, await deps.chainTime.now(payment.network)),
      );
    },
  );
}
