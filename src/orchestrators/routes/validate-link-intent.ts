import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { KytPlanSchema } from '../kyt-plans.ts';
import { type IntentBrandingOf, validateLinkIntent } from '../link-intents.ts';

export const INTENT_TAGS = ['V1/Client ID links'];
export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });

const Color = Type.String({ description: 'A CSS hex color' });
const Asset = Type.String({ description: 'A path under /branding/, beside the pay page' });

const IntentBrandingSchema = Type.Union(
  [
    Type.Object(
      {
        logoPath: Type.Optional(Asset),
        pageBackgroundColor: Color,
        cardBackgroundColor: Color,
        primaryActionColor: Color,
        primaryTextColor: Color,
        secondaryTextColor: Color,
        termsPath: Type.Optional(Asset),
        privacyPath: Type.Optional(Asset),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      'payreq’s addition: the orchestrator’s own branding of the pay page (`/v2/orchestrators/branding` without a client ID), which the intent’s page wears; null when it has none',
  },
);

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
    branding: IntentBrandingSchema,
  },
  { additionalProperties: false },
);

/** The merchant's page reads what it is about to accept before completing it. */
export function registerValidateLinkIntent(
  app: App,
  deps: { db: Database; clock: Clock; brandingOf: IntentBrandingOf },
): void {
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
    async (request) => validateLinkIntent(deps, request.params.token),
  );
}
