import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import type { CalldataDeps } from '../../payments/calldata/shared.ts';
import { createRequest } from '../../requests/create.ts';
import { unlessFailing } from '../../requests/requests.ts';
import { v1Calldata } from '../pay.ts';
import { AUTH, V1PayAnswer } from '../schemas.ts';

const PayBody = Type.Object(
  {
    payee: Type.String({ minLength: 1 }),
    amount: Type.String(),
    invoiceCurrency: Type.String({ minLength: 1 }),
    paymentCurrency: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);

/**
 * 0.31.0's schema answers `{requestId}`, its example `{requestID, paymentReference,
 * transactions, metadata}`: both spellings of the id are sent, with the rest of the example.
 */
const PayAnswer = Type.Object({
  requestId: Type.String(),
  requestID: Type.String(),
  paymentReference: Type.String(),
  transactions: V1PayAnswer.properties.transactions,
  metadata: V1PayAnswer.properties.metadata,
});

export function registerPayNewV1Request(
  app: App,
  deps: CalldataDeps & { db: Database; clock: Clock },
): void {
  app.post(
    '/v1/pay',
    {
      config: { auth: AUTH },
      schema: {
        tags: ['V1/Pay'],
        summary: 'Create a request and get the calldata to pay it, in one call (v1)',
        description:
          'POST /v1/request, then GET /v1/request/{paymentReference}/pay without a wallet (an approval is always included). When no calldata can be made, the request is not kept.',
        body: PayBody,
        response: { 201: PayAnswer },
      },
    },
    async (request, reply) => {
      const row = await createRequest(
        deps,
        { accountId: accountIdOf(request), clientId: null, origin: null },
        request.body,
      );
      const calldata = await unlessFailing(deps.db, [row], () => v1Calldata(deps, row, {}));
      return reply.code(201).send({
        requestId: row.requestId,
        requestID: row.requestId,
        paymentReference: `0x${row.paymentReference}`,
        ...calldata,
      });
    },
  );
}
