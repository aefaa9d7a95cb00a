import { Type } from 'typebox';
import { accountIdOf, clientIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { checkRequestPayer, type RequestGateDeps } from '../../screening/request-gate.ts';
import { COMMERCE_REQUEST_REFUSED, payableRequest } from '../commerce-guard.ts';
import type { RequestCalldataDeps } from '../pay.ts';
import { paymentRoutes } from '../payment-routes.ts';
import { AUTH, RequestParams, TAGS } from '../schemas.ts';

export const RoutesQuery = Type.Object(
  {
    wallet: Type.String({ minLength: 1, description: 'The wallet that will pay' }),
    amount: Type.Optional(Type.String()),
    feePercentage: Type.Optional(Type.String()),
    feeAddress: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const FeeItem = Type.Object({
  type: Type.Union(
    [Type.Literal('platform'), Type.Literal('protocol'), Type.Literal('crosschain')],
    {
      description:
        'The platform’s fee, or the bridge’s on a cross-chain route; the reference also reports protocol fees',
    },
  ),
  stage: Type.Literal('sending'),
  provider: Type.Optional(Type.String({ description: 'The bridge (`across`)' })),
  rateProvider: Type.Optional(Type.String({ description: '`lifi`: the routing aggregator' })),
  amount: Type.Union([Type.String(), Type.Null()]),
  amountInUSD: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'Only where the fee is counted in USD',
    }),
  ),
  currency: Type.String(),
  receiverAddress: Type.String(),
  network: Type.String(),
});

export const RoutesResponse = Type.Object({
  routes: Type.Array(
    Type.Object({
      id: Type.String({
        description:
          'REQUEST_NETWORK_PAYMENT: the request’s token on its network; `<CHAIN>_<TOKEN>` (ARBITRUM_USDT): from that chain and token, paid by /pay with them as `chain` and `token`',
      }),
      fee: Type.Number({ description: 'What the payer pays on top, in the fee’s currency' }),
      feeInUSD: Type.Optional(Type.Number()),
      feeBreakdown: Type.Array(FeeItem),
      speed: Type.Union([Type.Literal('FAST'), Type.Integer({ minimum: 0 })], {
        description:
          'FAST on the request’s network; seconds the bridge is expected to take otherwise',
      }),
      price_impact: Type.Number(),
      chain: Type.String({ description: 'BASE, ETHEREUM, POLYGON, … (the network otherwise)' }),
      token: Type.String(),
    }),
  ),
  platformFee: Type.Optional(
    Type.Object(
      { percentage: Type.Number(), address: Type.String() },
      {
        description: 'The platform fee the routes carry, when there is one',
      },
    ),
  ),
});

export function registerGetRequestRoutes(app: App, deps: RequestCalldataDeps & RequestGateDeps) {
  app.get(
    '/v2/request/:requestId/routes',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'The routes a wallet can pay a request by: on its network, and from other chains',
        description:
          'Pay the route named REQUEST_NETWORK_PAYMENT with GET /v2/request/{requestId}/pay, without chain and token; a cross-chain route with its chain and token. A source the routing aggregator has no checked route from is left out.',
        params: RequestParams,
        querystring: RoutesQuery,
        response: { 200: RoutesResponse, 409: COMMERCE_REQUEST_REFUSED },
      },
    },
    async (request) => {
      const row = await payableRequest(deps.db, accountIdOf(request), request.params.requestId);
      await checkRequestPayer(deps, row, request.query.wallet);
      return paymentRoutes(deps, row, request.query, clientIdOf(request));
    },
  );
}
