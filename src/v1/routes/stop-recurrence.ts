import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { setRecurrenceStopped } from '../../requests/recurring.ts';
import { requestByReference } from '../lookup.ts';
import { AUTH, ReferenceParams, TAGS } from '../schemas.ts';

export function registerStopV1Recurrence(app: App, deps: { db: Database; clock: Clock }): void {
  app.patch(
    '/v1/request/:paymentReference/stop-recurrence',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Stop a recurring request’s series (v1)',
        description:
          'As PATCH /v2/request/{requestId} with isRecurrenceStopped true: no further occurrence is made. On the original or any occurrence; 400 request_not_recurring for a request of no series. Answers 200 with no body, as v1 does.',
        params: ReferenceParams,
      },
    },
    async (request, reply) => {
      const row = await requestByReference(
        deps.db,
        accountIdOf(request),
        request.params.paymentReference,
      );
      await setRecurrenceStopped(deps.db, row, true, deps.clock.now());
      return reply.code(200).send();
    },
  );
}
