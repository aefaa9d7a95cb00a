import type { onRequestHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { SecretBox } from '../../base/secret-box.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { AUTH, findWebhook, IdParams, TAGS } from '../ownership.ts';
import { setWebhookActive } from '../registrations.ts';
import { WebhookSchema } from '../schemas.ts';

/**
 * `{active}` sets the state; no body (Auth API 0.14.0's toggle, sent without a body or a
 * content type), or a body without `active`, flips it. Fastify validates a missing body as
 * null, hence null among the types (one schema, not a union: a wrong `active` is then reported
 * alone, and unknown fields are dropped as everywhere), which also tells the OpenAPI document
 * the body is optional.
 */
const Body = Type.Unsafe<{ active?: boolean } | null>({
  type: ['object', 'null'],
  properties: {
    active: {
      type: 'boolean',
      description: 'The state to set; absent: the opposite of the current one',
    },
  },
  additionalProperties: false,
});

/**
 * A toggle sent with a JSON content type and nothing after it (a client whose fetch wrapper
 * always sets the header) is the same call as one without a body, as the reference (Express,
 * which reads an empty JSON body as `{}`) takes it; elsewhere an empty JSON body answers 400
 * `empty_body`. Dropping the header before parsing makes Fastify see no body.
 */
const emptyJsonIsNoBody: onRequestHookHandler = (request, _reply, done) => {
  const { headers } = request;
  // Neither length nor chunks, or a length of 0: HTTP/1.1 says the request has no body.
  const length = headers['content-length'];
  if (headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
    delete headers['content-type'];
  }
  done();
};

export function registerUpdateWebhook(
  app: App,
  deps: { db: Database; clock: Clock; secretBox: SecretBox },
): void {
  app.put(
    '/v1/webhook/:id',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Switch an endpoint on or off, or toggle it (no body, or no active)',
        params: IdParams,
        body: Body,
        response: { 200: WebhookSchema },
      },
      onRequest: emptyJsonIsNoBody,
    },
    async (request) => {
      const row = await findWebhook(deps.db, request, request.params.id);
      // No body at all reaches here as undefined (validated as null).
      return setWebhookActive(deps, row, request.body?.active);
    },
  );
}
