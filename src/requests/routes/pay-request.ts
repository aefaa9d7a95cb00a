import { Type } from 'typebox';
import { accountIdOf, clientIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { checkRequestPayer, type RequestGateDeps } from '../../screening/request-gate.ts';
import { COMMERCE_REQUEST_REFUSED, payableRequest } from '../commerce-guard.ts';
import { namedCrossChainValues } from '../cross-chain-query.ts';
import { type RequestCalldataDeps, requestCalldata } from '../pay.ts';
import { AUTH, BigNumberJson, PayQuery, RequestParams, TAGS } from '../schemas.ts';

const PayResponse = Type.Object({
  transactions: Type.Array(
    Type.Object(
      {
        data: Type.String(),
        to: Type.String(),
        value: BigNumberJson,
        chainType: Type.Union([Type.Literal('evm'), Type.Literal('tron')]),
      },
      { additionalProperties: true, description: 'Tron calls add their trigger parameters' },
    ),
  ),
  metadata: Type.Record(Type.String(), Type.Unknown()),
});

export function registerPayRequest(app: App, deps: RequestCalldataDeps & RequestGateDeps): void {
  app.get(
    '/v2/request/:requestId/pay',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Calldata to pay a request (all of what is still due, or `amount` of it)',
        description:
          'Without `wallet` nothing is read from the chain: an approval is always included, and hasEnoughBalance and hasEnoughGas read true.',
        params: RequestParams,
        querystring: PayQuery,
        response: { 200: PayResponse, 409: COMMERCE_REQUEST_REFUSED },
      },
      preValidation: namedCrossChainValues,
    },
    async (request) => {
      const row = await payableRequest(deps.db, accountIdOf(request), request.params.requestId);
      await checkRequestPayer(deps, row, request.query.wallet);
      return requestCalldata(deps, row, request.query, clientIdOf(request));
    },
  );
}
