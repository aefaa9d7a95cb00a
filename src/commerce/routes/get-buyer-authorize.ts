import { Type } from 'typebox';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { buyerTransactions, findByPayToken } from '../buyer.ts';
import type { CommerceDeps } from '../deps.ts';
import { COMMERCE_TAGS, EvmCall, evmCallOf, PAY_TOKEN_AUTH, PayTokenParams } from '../schemas.ts';

const BuyerAuthorizeQuery = Type.Object(
  {
    wallet: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'The connected wallet, the payer of the authorization: refused (400) when the payment names another buyer',
      }),
    ),
  },
  { additionalProperties: false },
);

const BuyerAuthorizeResponse = Type.Object({
  transactions: Type.Array(EvmCall, {
    description:
      'What the wallet sends, in order: the approval of the wrapper for the amount (only when its allowance is short), then authorizePayment',
  }),
});

export function registerGetBuyerAuthorize(app: App, deps: CommerceDeps): void {
  app.get(
    '/v2/commerce-payments/token/:payToken/authorize',
    {
      config: { auth: PAY_TOKEN_AUTH, payPage: true },
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'The transactions a buyer’s wallet sends to authorize a commerce payment',
        description:
          'payreq’s addition, for the hosted page: the allowance is read from the chain now. A payment that names no buyer is authorized by whichever wallet sends it; nothing is recorded until the authorization is seen.',
        params: PayTokenParams,
        querystring: BuyerAuthorizeQuery,
        response: {
          200: BuyerAuthorizeResponse,
          400: { description: 'Another wallet than the named buyer', $ref: 'ErrorEnvelope' },
          409: {
            description: 'Already authorized, or past its pre-approval expiry',
            $ref: 'ErrorEnvelope',
          },
        },
      },
    },
    async (request) => {
      const payment = await findByPayToken(deps.db, linkScopeOf(request), request.params.payToken);
      const transactions = await buyerTransactions(deps, payment, request.query.wallet);
      return {
        transactions: transactions.map(evmCallOf),
      };
    },
  );
}
