import { Type } from 'typebox';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import type { StatusDeps } from '../../requests/read.ts';
import { requestByReference } from '../lookup.ts';
import { AUTH, ReferenceParams, TAGS } from '../schemas.ts';
import { v1Status } from '../status.ts';

const Nullable = Type.Union([Type.String(), Type.Null()]);

const V1Status = Type.Object({
  hasBeenPaid: Type.Boolean(),
  paymentReference: Type.String(),
  requestId: Type.String(),
  requestAmount: Type.Union([Type.String(), Type.Null()], {
    description: 'In the invoice currency',
  }),
  isListening: Type.Boolean(),
  payments: Type.Array(
    Type.Object({
      sourceTxHash: Nullable,
      destinationTxHash: Type.Union([Type.String(), Type.Null()], {
        description: 'null when the payment left and arrived on one network',
      }),
      detectionSource: Nullable,
      note: Nullable,
    }),
  ),
});

export function registerGetV1Request(app: App, deps: StatusDeps): void {
  app.get(
    '/v1/request/:paymentReference',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'A request’s status by its payment reference (v1)',
        params: ReferenceParams,
        response: { 200: V1Status },
      },
    },
    async (request) => {
      const row = await requestByReference(
        deps.db,
        accountIdOf(request),
        request.params.paymentReference,
      );
      return v1Status(deps, row);
    },
  );
}
