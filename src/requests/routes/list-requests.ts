import { Type } from 'typebox';
import { PAGE_QUERY, PAGINATION } from '../../http/pages.ts';
import { scopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { FLOW_DESCRIPTION, REQUEST_FLOWS } from '../flows.ts';
import { listRequests, type StatusDeps } from '../read.ts';
import { AUTH, RequestStatusRef, TAGS } from '../schemas.ts';

export function registerListRequests(app: App, deps: StatusDeps): void {
  app.get(
    '/v2/request',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary:
          'The account’s requests (a client ID’s: those made with it), newest first; walletAddress narrows to one payee, securePaymentFlow to one flow',
        querystring: Type.Object(
          {
            walletAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            securePaymentFlow: Type.Optional(
              Type.Enum([...REQUEST_FLOWS], { description: FLOW_DESCRIPTION }),
            ),
            ...PAGE_QUERY,
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            requests: Type.Array(RequestStatusRef),
            pagination: Type.Object({
              ...PAGINATION,
            }),
          }),
        },
      },
    },
    async (request) => listRequests(deps, scopeOf(request), request.query),
  );
}
