import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { COMMERCE_REQUEST_REFUSED, refuseCommerceRequests } from '../../requests/commerce-guard.ts';
import type { RequestCalldataDeps } from '../../requests/pay.ts';
import { paymentRoutes } from '../../requests/payment-routes.ts';
import { RoutesQuery, RoutesResponse } from '../../requests/routes/get-request-routes.ts';
import { checkRequestPayer, type RequestGateDeps } from '../../screening/request-gate.ts';
import { requestByReference } from '../lookup.ts';
import { AUTH, ReferenceParams, TAGS } from '../schemas.ts';

export function registerGetV1RequestRoutes(
  app: App,
  deps: RequestCalldataDeps & RequestGateDeps,
): void {
  app.get(
    '/v1/request/:paymentReference/routes',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'The routes a wallet can pay a request by, by its payment reference (v1)',
        description:
          'As GET /v2/request/{requestId}/routes. Pay the route named REQUEST_NETWORK_PAYMENT with GET /v1/request/{paymentReference}/pay, without chain and token; a cross-chain route with its chain and token.',
        params: ReferenceParams,
        querystring: RoutesQuery,
        response: { 200: RoutesResponse, 409: COMMERCE_REQUEST_REFUSED },
      },
    },
    async (request) => {
      const row = await requestByReference(
        deps.db,
        accountIdOf(request),
        request.params.paymentReference,
      );
      await refuseCommerceRequests(deps.db, [row]);
      await checkRequestPayer(deps, row, request.query.wallet);
      return paymentRoutes(deps, row, request.query, null);
    },
  );
}
