import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { ownRequest, requestStatus, type StatusDeps } from '../read.ts';
import { setRecurrenceStopped } from '../recurring.ts';
import { AUTH, RequestParams, RequestStatusRef, TAGS } from '../schemas.ts';

const UpdateRequestBody = Type.Object(
  {
    isRecurrenceStopped: Type.Boolean({
      description:
        'true stops the series; false resumes it from the first occurrence dated after now (none of those skipped meanwhile is made)',
    }),
  },
  { additionalProperties: false },
);

export function registerUpdateRequest(app: App, deps: StatusDeps & { clock: Clock }): void {
  app.patch(
    '/v2/request/:requestId',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Stop or resume a recurring request’s series',
        description:
          'On the original or any occurrence: acts on their series. Stopped, no further occurrence is made; resumed, the next is the first dated after now (none skipped meanwhile is made). 400 request_not_recurring for a request of no series.',
        params: RequestParams,
        body: UpdateRequestBody,
        response: { 200: RequestStatusRef },
      },
    },
    async (request) => {
      const row = await ownRequest(deps.db, accountIdOf(request), request.params.requestId);
      await setRecurrenceStopped(deps.db, row, request.body.isRecurrenceStopped, deps.clock.now());
      return requestStatus(deps, row);
    },
  );
}
