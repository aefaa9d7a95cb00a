import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { completeLinkIntent } from '../complete-link-intent.ts';
import { KytPlanSchema } from '../kyt-plans.ts';
import { INTENT_TAGS, TokenParams } from './validate-link-intent.ts';

// Auth API 0.14.0 gives this operation no body: ours names the destination, optionally.
const Body = Type.Object(
  { destinationId: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })) },
  { additionalProperties: false },
);

const Completed = Type.Object(
  {
    clientId: Type.Object(
      {
        id: Type.String(),
        clientId: Type.String(),
        label: Type.String(),
        allowedDomains: Type.Array(Type.String()),
        payeeDestinationId: Type.String(),
        status: Type.String(),
        createdAt: Type.String({ format: 'date-time' }),
      },
      { additionalProperties: false },
    ),
    link: Type.Object(
      {
        id: Type.String(),
        clientIdId: Type.String(),
        orchestratorId: Type.String(),
        status: Type.Literal('active'),
        kyt: Type.Union([KytPlanSchema, Type.Null()]),
        createdAt: Type.String({ format: 'date-time' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export function registerCompleteLinkIntent(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry },
): void {
  app.post(
    '/v1/client-id-links/intents/:token',
    {
      config: { auth: ['session'] },
      // Auth API clients send no body at all: that is the empty one.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: INTENT_TAGS,
        summary: 'Complete a link intent: a new client ID linked to its orchestrator',
        description:
          'Creates a client ID of the signed-in account with the intent’s name and domains, bound to the payee destination `destinationId` (default: the account’s only active destination), links it to the orchestrator with the intent’s KYT plan, uses up the intent and sends `client_id.linked` to the orchestrator’s webhooks.',
        params: TokenParams,
        body: Body,
        response: {
          201: Completed,
          404: { description: 'No intent has this token', $ref: 'ErrorEnvelope' },
          410: { description: 'The intent was used or has expired', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request, reply) => {
      const completed = await completeLinkIntent(
        deps,
        accountIdOf(request),
        request.params.token,
        request.body.destinationId,
      );
      return reply.code(201).send(completed);
    },
  );
}
