import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { ownRequest, requestStatus, type StatusDeps } from '../read.ts';
import { AUTH, RequestParams, RequestStatusRef, TAGS } from '../schemas.ts';

export function registerGetRequest(app: App, deps: StatusDeps): void {
  app.get(
    '/v2/request/:requestId',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'A request’s status and payments',
        params: RequestParams,
        response: { 200: RequestStatusRef },
      },
    },
    async (request) => {
      const row = await ownRequest(deps.db, accountIdOf(request), request.params.requestId);
      return requestStatus(deps, row);
    },
  );
}
