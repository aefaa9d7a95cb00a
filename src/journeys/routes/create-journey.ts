import { Type } from 'typebox';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { createJourney, type JourneyDeps } from '../journeys.ts';
import { JOURNEY_AUTH, JOURNEY_TAGS } from '../schemas.ts';

const CreateJourneyBody = Type.Object({
  requestId: Type.String({
    minLength: 1,
    maxLength: 128,
    description: 'One of the caller’s requests (as POST /v2/request answered it)',
  }),
});

/** `POST /v2/journey` (Request API 0.31.0): a new journey for one of the caller's requests. */
export function registerCreateJourney(app: App, deps: JourneyDeps): void {
  app.post(
    '/v2/journey',
    {
      config: { auth: JOURNEY_AUTH },
      schema: {
        tags: JOURNEY_TAGS,
        summary: 'Start tracing a request’s payment across processors',
        body: CreateJourneyBody,
        response: {
          201: Type.Object({ journeyId: Type.String() }),
          404: { description: 'No such request of the caller’s', $ref: 'ErrorEnvelope' },
          409: { description: 'The request has as many journeys as it may', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request, reply) => {
      const journey = await createJourney(deps, accountIdOf(request), request.body.requestId);
      return reply.code(201).send({ journeyId: journey.id });
    },
  );
}
