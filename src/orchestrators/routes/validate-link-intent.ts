import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { KytPlanSchema } from '../kyt-plans.ts';
import { validateLinkIntent } from '../link-intents.ts';

export const INTENT_TAGS = ['V1/Client ID links'];
export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });

const Facts = Type.Object(
  {
    intent: Type.Object(
      {
        id: Type.String(),
        clientIdName: Type.String(),
        allowedDomains: Type.Array(Type.String()),
        externalId: Type.Union([Type.String(), Type.Null()]),
        kyt: Type.Union([KytPlanSchema, Type.Null()]),
        expiresAt: Type.String({ format: 'date-time' }),
      },
      { additionalProperties: false },
    ),
    orchestrator: Type.Object(
      { id: Type.String(), name: Type.String() },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** The merchant's page reads what it is about to accept before completing it. */
export function registerValidateLinkIntent(app: App, deps: { db: Database; clock: Clock }): void {
  app.get(
    '/v1/client-id-links/intents/:token',
    {
      config: { auth: ['session'] },
      schema: {
        tags: INTENT_TAGS,
        summary: 'Check a link intent and read what it links',
        params: TokenParams,
        response: {
          200: Facts,
          404: { description: 'No intent has this token', $ref: 'ErrorEnvelope' },
          410: { description: 'The intent was used or has expired', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request) => validateLinkIntent(deps.db, deps.clock, request.params.token),
  );
}
