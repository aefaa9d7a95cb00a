import { Type } from 'typebox';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { LINK_AUTH, LINK_TAGS, TokenParams } from '../schemas.ts';
import { USER_EVENTS } from '../user-event-payload.ts';
import { recordUserEvent, type UserEventDeps } from '../user-events.ts';

const MAX_PROPERTIES = 16;
const MAX_PROPERTY_LENGTH = 256;
const PROPERTY_NAME = '^[a-z][a-z0-9_]{0,63}$';

const UserEventBody = Type.Object(
  {
    userEvent: Type.Enum([...USER_EVENTS]),
    occurredAt: Type.String({ maxLength: 64, description: 'When it happened, by the browser' }),
    properties: Type.Optional(
      Type.Record(
        Type.String({ pattern: PROPERTY_NAME }),
        Type.String({ maxLength: MAX_PROPERTY_LENGTH }),
        {
          maxProperties: MAX_PROPERTIES,
          additionalProperties: false,
          description:
            'Up to 16 strings, such as wallet_provider; a wallet address only hashed, as wallet_address_hashed',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export function registerReportUserEvent(app: App, deps: UserEventDeps): void {
  app.post(
    '/v2/secure-payments/:token/user-events',
    {
      config: { auth: LINK_AUTH, payPage: true },
      schema: {
        tags: LINK_TAGS,
        summary: 'Report what the payer did in their wallet (pay-page telemetry)',
        description:
          'payreq’s own, not in the reference API. Emits one secure_payment.user_event to the webhooks of the link’s account; best effort, never a settlement signal. Any link status is accepted; 30 reports per link per minute.',
        params: TokenParams,
        body: UserEventBody,
        response: {
          202: Type.Object({ accepted: Type.Literal(true) }),
          429: { description: 'Too many reports for this link', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request, reply) => {
      await recordUserEvent(deps, linkScopeOf(request), request.params.token, request.body);
      return reply.code(202).send({ accepted: true });
    },
  );
}
