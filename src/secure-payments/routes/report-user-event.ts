import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { clientIdOf, linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { LINK_AUTH, LINK_TAGS, TokenParams } from '../schemas.ts';
import { USER_EVENT_PROPERTIES, USER_EVENTS } from '../user-event-payload.ts';
import { recordUserEvent, type UserEventDeps, type UserEventInput } from '../user-events.ts';

/** 0.31.0's bounds on a property's value. */
const MAX_TEXT_LENGTH = 2048;
const MAX_LIST_ITEMS = 1000;

const Text = Type.String({ maxLength: MAX_TEXT_LENGTH });

/** 0.31.0's `/events` body. */
const UserEventBody = Type.Object(
  {
    userEvent: Type.Enum([...USER_EVENTS]),
    occurredAt: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'When it happened, by the browser; when it is left out, when payreq got it',
      }),
    ),
    properties: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Union([
          Text,
          Type.Number(),
          Type.Boolean(),
          Type.Array(Text, { maxItems: MAX_LIST_ITEMS }),
          Type.Null(),
        ]),
        {
          description: `Only ${USER_EVENT_PROPERTIES.join(', ')} are kept and forwarded; others are dropped. A wallet address only hashed, as wallet_address_hashed.`,
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const RATE_LIMITED = { description: 'Too many reports for this link', $ref: 'ErrorEnvelope' };

/**
 * The reference's `POST /v2/secure-payments/{token}/events` (x-client-id + Origin, 202
 * `{received: true}`) and payreq's older `/user-events` alias (any link credential, 202
 * `{accepted: true}` as it always answered). One service, one per-link budget of 30 a minute
 * shared by both paths.
 */
export function registerReportUserEvent(app: App, deps: UserEventDeps): void {
  const description =
    'Emits one secure_payment.user_event to the webhooks of the link’s account; best effort, never a settlement signal. Any link status is accepted; 30 reports per link per minute, over both paths.';
  // Both paths record the same way; only their answers differ.
  const record = (request: FastifyRequest<{ Params: { token: string }; Body: UserEventInput }>) =>
    recordUserEvent(
      deps,
      { scope: linkScopeOf(request), clientId: clientIdOf(request)?.clientId ?? null },
      request.params.token,
      request.body,
    );
  app.post(
    '/v2/secure-payments/:token/events',
    {
      config: { auth: ['clientId'], payPage: true },
      schema: {
        tags: LINK_TAGS,
        summary: 'Report what the payer did in their wallet (pay-page telemetry)',
        description,
        params: TokenParams,
        body: UserEventBody,
        response: {
          202: Type.Object({ received: Type.Literal(true) }),
          429: RATE_LIMITED,
        },
      },
    },
    async (request, reply) => {
      await record(request);
      return reply.code(202).send({ received: true });
    },
  );
  app.post(
    '/v2/secure-payments/:token/user-events',
    {
      config: { auth: LINK_AUTH, payPage: true },
      schema: {
        tags: LINK_TAGS,
        summary: 'Report what the payer did in their wallet (alias of …/events)',
        description: `payreq’s older path for POST /v2/secure-payments/{token}/events, with the same body. ${description}`,
        params: TokenParams,
        body: UserEventBody,
        response: {
          202: Type.Object({ accepted: Type.Literal(true) }),
          429: RATE_LIMITED,
        },
      },
    },
    async (request, reply) => {
      await record(request);
      return reply.code(202).send({ accepted: true });
    },
  );
}
