import { Type } from 'typebox';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { findByPayToken } from '../buyer.ts';
import type { CommerceDeps } from '../deps.ts';
import { buyerReclaim } from '../reclaim.ts';
import { COMMERCE_TAGS, EvmCall, evmCallOf, PAY_TOKEN_AUTH, PayTokenParams } from '../schemas.ts';

const BuyerReclaimQuery = Type.Object(
  {
    wallet: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'The connected wallet: only the payer of the authorization may reclaim',
      }),
    ),
  },
  { additionalProperties: false },
);

const BuyerReclaimResponse = Type.Object({
  transactions: Type.Array(EvmCall, {
    description: 'What the wallet sends: the wrapper’s reclaimPayment(paymentReference)',
  }),
});

export function registerGetBuyerReclaim(app: App, deps: CommerceDeps): void {
  app.get(
    '/v2/commerce-payments/token/:payToken/reclaim',
    {
      config: { auth: PAY_TOKEN_AUTH, payPage: true },
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'The transaction a buyer’s wallet sends to reclaim an expired commerce payment',
        description:
          'payreq’s addition, for the hosted page: once the authorization has expired by the chain’s clock, the payer takes back what the escrow still holds, all of it or, when part was captured, the rest (the view’s `canReclaim`). Nothing is recorded: once detection sees the wrapper’s PaymentReclaimed, nothing reads held and the payment reads RECLAIMED (PAID or a refund’s status when part was captured).',
        params: PayTokenParams,
        querystring: BuyerReclaimQuery,
        response: {
          200: BuyerReclaimResponse,
          400: { description: 'The wallet is no EVM address', $ref: 'ErrorEnvelope' },
          403: { description: 'Another wallet than the payer', $ref: 'ErrorEnvelope' },
          409: {
            description: 'Nothing held, or the authorization has not expired yet',
            $ref: 'ErrorEnvelope',
          },
        },
      },
    },
    async (request) => {
      const payment = await findByPayToken(deps.db, linkScopeOf(request), request.params.payToken);
      const tx = await buyerReclaim(deps, payment, request.query.wallet);
      return {
        transactions: [evmCallOf(tx)],
      };
    },
  );
}
