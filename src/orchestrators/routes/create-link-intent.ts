import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { KytPlanBody, KytPlanSchema } from '../kyt-plans.ts';
import { createLinkIntent } from '../link-intents.ts';
import { ORCHESTRATOR_AUTH, ORCHESTRATOR_TAGS, orchestratorIdOf } from '../schemas.ts';

const Body = Type.Object(
  {
    clientIdName: Type.String({ minLength: 1, maxLength: 100 }),
    domains: Type.Optional(Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 10 })),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    kyt: Type.Optional(KytPlanBody),
  },
  { additionalProperties: false },
);

const Created = Type.Object(
  {
    url: Type.String({
      format: 'uri',
      description:
        'The page the merchant opens to accept the intent: `<PAY_URL>/link/<accessToken>`, served by payreq (wallet sign-in, the destination, completion)',
    }),
    intent: Type.Object(
      {
        id: Type.String(),
        accessToken: Type.String(),
        orchestratorId: Type.String(),
        clientIdName: Type.String(),
        allowedDomains: Type.Array(Type.String()),
        externalId: Type.Union([Type.String(), Type.Null()]),
        kyt: Type.Union([KytPlanSchema, Type.Null()]),
        used: Type.Boolean(),
        expiresAt: Type.String({ format: 'date-time' }),
        createdAt: Type.String({ format: 'date-time' }),
        updatedAt: Type.String({ format: 'date-time' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export function registerCreateLinkIntent(
  app: App,
  deps: { db: Database; clock: Clock; payUrl: string },
): void {
  app.post(
    '/v2/orchestrators/client-id-link-intents',
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'Invite a merchant to link a new client ID (single use, two days)',
        description:
          'The merchant opens `url` (payreq’s page for it), signs in with its wallet and completes the intent (`POST /v1/client-id-links/intents/{token}`): a new client ID of its account, named `clientIdName`, allowed on `domains`, bound to its payee destination and linked to this orchestrator with the KYT plan `kyt`; `client_id.linked` then goes to the orchestrator webhooks. `accessToken` is shown only here.',
        body: Body,
        response: { 201: Created },
      },
    },
    async (request, reply) => {
      const created = await createLinkIntent(deps, orchestratorIdOf(request), request.body);
      return reply.code(201).send(created);
    },
  );
}
