import { Type } from 'typebox';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import type { CalldataDeps } from '../../payments/calldata/shared.ts';
import { COMMERCE_REQUEST_REFUSED, refuseCommerceRequests } from '../../requests/commerce-guard.ts';
import { namedCrossChainValues } from '../../requests/cross-chain-query.ts';
import { PayQuery } from '../../requests/schemas.ts';
import { checkRequestPayer, type RequestGateDeps } from '../../screening/request-gate.ts';
import { requestByReference } from '../lookup.ts';
import { v1Calldata } from '../pay.ts';
import { AUTH, ReferenceParams, TAGS, V1PayAnswer } from '../schemas.ts';

/** v1's query: v2's without the fee and crypto-to-fiat parameters v1 does not declare. */
const V1PayQuery = Type.Object(
  {
    wallet: PayQuery.properties.wallet,
    chain: PayQuery.properties.chain,
    token: PayQuery.properties.token,
    amount: PayQuery.properties.amount,
  },
  { additionalProperties: false },
);

export function registerPayV1Request(app: App, deps: CalldataDeps & RequestGateDeps): void {
  app.get(
    '/v1/request/:paymentReference/pay',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Calldata to pay a request, by its payment reference (v1)',
        description:
          'As GET /v2/request/{requestId}/pay: all of what is still due, or `amount` of it. Without `wallet` nothing is read from the chain: an approval is always included, and hasEnoughBalance and hasEnoughGas read true.',
        params: ReferenceParams,
        querystring: V1PayQuery,
        response: { 200: V1PayAnswer, 409: COMMERCE_REQUEST_REFUSED },
      },
      preValidation: namedCrossChainValues,
    },
    async (request) => {
      const row = await requestByReference(
        deps.db,
        accountIdOf(request),
        request.params.paymentReference,
      );
      await refuseCommerceRequests(deps.db, [row]);
      await checkRequestPayer(deps, row, request.query.wallet);
      return v1Calldata(deps, row, request.query);
    },
  );
}
