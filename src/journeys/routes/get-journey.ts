import { Type } from 'typebox';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { ownJourney } from '../journeys.ts';
import { JOURNEY_AUTH, JOURNEY_TAGS, JourneyAnswer } from '../schemas.ts';
import { type JourneyViewDeps, journeyBody } from '../view.ts';

const JourneyParams = Type.Object({ journeyId: Type.String({ minLength: 1, maxLength: 128 }) });

/** `GET /v2/journey/{journeyId}` (Request API 0.31.0): the journey, every step in order. */
export function registerGetJourney(app: App, deps: JourneyViewDeps): void {
  app.get(
    '/v2/journey/:journeyId',
    {
      config: { auth: JOURNEY_AUTH },
      schema: {
        tags: JOURNEY_TAGS,
        summary: 'A journey: every step of a request’s payment, processors’ and payreq’s own',
        params: JourneyParams,
        response: { 200: JourneyAnswer },
      },
    },
    async (request) => {
      const journey = await ownJourney(deps.db, accountIdOf(request), request.params.journeyId);
      return journeyBody(deps, journey);
    },
  );
}
