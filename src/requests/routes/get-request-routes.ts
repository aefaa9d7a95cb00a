import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf, clientIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { paymentRoutes } from '../payment-routes.ts';
import { ownRequest } from '../read.ts';
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
  type: Type.Union([Type.Literal('platform'), Type.Literal('protocol')], {
    description: 'Ours are platform fees; the reference also reports protocol fees',
  }),
  stage: Type.Literal('sending'),
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
        description: 'REQUEST_NETWORK_PAYMENT: the request’s token on its network',
      }),
      fee: Type.Number({ description: 'What the payer pays on top, in the fee’s currency' }),
      feeInUSD: Type.Optional(Type.Number()),
      feeBreakdown: Type.Array(FeeItem),
      speed: Type.Literal('FAST'),
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

export function registerGetRequestRoutes(app: App, deps: { db: Database; chains: ChainRegistry }) {
  app.get(
    '/v2/request/:requestId/routes',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'The routes a wallet can pay a request by (today: on the request’s network)',
        description:
          'Pay the route named REQUEST_NETWORK_PAYMENT with GET /v2/request/{requestId}/pay, without chain and token.',
        params: RequestParams,
        querystring: RoutesQuery,
        response: { 200: RoutesResponse },
      },
    },
    async (request) => {
      const row = await ownRequest(deps.db, accountIdOf(request), request.params.requestId);
      return paymentRoutes(deps, row, request.query, clientIdOf(request));
    },
  );
}
